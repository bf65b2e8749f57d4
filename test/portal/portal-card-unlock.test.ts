import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basket, tokens } from '../cards/cards-support.js';
import { expectLedgerSound } from '../checkout/checkout-support.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { type PortalSession, portalCall, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

interface Card {
  tokenId: string;
  state: string;
  balanceMinor: number;
  locks: {
    action: 'lock' | 'unlock';
    by: string | null;
    trackingUnitId: string | null;
    reason: string | null;
    at: string;
  }[];
}

describe.each(databases)('the merchant portal unlocks a locked card (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let other: Terminal;
  let owner: PortalSession;
  let staff: PortalSession;
  const ownerEmail = `unlock-owner-${kind}@example.test`;

  const call = (s: { cookie: string; csrf?: string }, method: string, url: string, payload?: object) =>
    portalCall(t, s, method, url, payload);
  const upload = (id: string, card: string) =>
    term.pos('POST', `/baskets/${id}`, { body: basket, query: { consumerIdentToken: card } });
  const accountStatus = async (tokenId: string) =>
    (
      await t.database.db
        .selectFrom('cards as c')
        .innerJoin('ledger_accounts as a', 'a.id', 'c.account_id')
        .select('a.status')
        .where('c.token_id', '=', tokenId)
        .executeTakeFirstOrThrow()
    ).status;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    other = await setupTerminal(t);
    const users = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
    await t.admin('POST', users, { email: ownerEmail, password: PASSWORD });
    await t.admin('POST', users, { email: `unlock-staff-${kind}@example.test`, password: PASSWORD });
    owner = await portalSession(t, ownerEmail, PASSWORD);
    staff = await portalSession(t, `unlock-staff-${kind}@example.test`, PASSWORD);
  });
  afterAll(async () => {
    await expectLedgerSound(t);
    await t?.close();
  });

  it('unlock is the inverse of lock: registered again, own account open, balance as it was, POS accepts it, recorded', async () => {
    const card = `U-${kind}-1`;
    await tokens(term).register(card);
    expect((await tokens(term).add(card, '10')).statusCode).toBe(200);
    const lockedAt = new Date(t.clock.nowMs()).toISOString();
    const locked = await call(owner, 'POST', `/cards/${card}/lock`);
    expect((locked.json() as Card).state).toBe('locked');
    expect(await accountStatus(card)).toBe('closed');
    const refused = await upload('UL-1', card);
    expect(refused.statusCode).toBe(400);
    expect((refused.json() as { ErrorId: number }).ErrorId).toBe(11005);
    // The POS's balance operations were decided on a remembered card view before: refused now.
    expect((await tokens(term).add(card, '1')).json()).toMatchObject({ ErrorId: 13002 });

    t.clock.advance(60_000);
    const res = await call(owner, 'POST', `/cards/${card}/unlock`);
    expect(res.statusCode).toBe(200);
    const unlocked = res.json() as Card;
    expect(unlocked).toMatchObject({ state: 'registered', balanceMinor: 1000 });
    expect(unlocked.locks).toEqual([
      {
        action: 'unlock',
        by: ownerEmail,
        trackingUnitId: null,
        reason: null,
        at: new Date(t.clock.nowMs()).toISOString(),
      },
      { action: 'lock', by: ownerEmail, trackingUnitId: null, reason: null, at: lockedAt },
    ]);
    expect(await accountStatus(card)).toBe('open');

    expect((await upload('UL-2', card)).statusCode).toBe(200);
    expect((await tokens(term).withdraw(card, '2.5')).json()).toMatchObject({ Balance: 7.5 });
    expect((await tokens(term).add(card, '1')).json()).toMatchObject({ Balance: 8.5 });
    // The POS reads it as registered; it can be locked again (and disposed once empty).
    const posLock = await tokens(term).lock(card);
    expect(posLock.json()).toMatchObject({ State: 'locked', Balance: 8.5 });
    await expectLedgerSound(t);
  });

  it('a second unlock, or an unlock of a card that is not locked, changes and records nothing', async () => {
    const card = `U-${kind}-2`;
    await tokens(term).register(card);
    const notLocked = await call(owner, 'POST', `/cards/${card}/unlock`);
    expect(notLocked.statusCode).toBe(200);
    expect(notLocked.json()).toMatchObject({ state: 'registered', locks: [] });
    await tokens(term).lock(card);
    await call(owner, 'POST', `/cards/${card}/unlock`);
    const again = await call(owner, 'POST', `/cards/${card}/unlock`);
    expect((again.json() as Card).locks.map((l) => l.action)).toEqual(['unlock', 'lock']);
  });

  it('card locks recorded: who locked or unlocked a card (a portal user or the till), when, and the reason given; a retried lock records nothing', async () => {
    const card = `U-${kind}-4`;
    await tokens(term).register(card);
    const at = (offsetMs: number) => new Date(t.clock.nowMs() + offsetMs).toISOString();
    const lockAt = at(0);
    const locked = await call(owner, 'POST', `/cards/${card}/lock`, {
      reason: '  Reported lost by the customer ',
    });
    expect(locked.statusCode).toBe(200);
    expect((await call(owner, 'POST', `/cards/${card}/lock`, { reason: 'again' })).statusCode).toBe(200);
    t.clock.advance(60_000);
    const unlockAt = at(0);
    await call(owner, 'POST', `/cards/${card}/unlock`, { reason: 'Found again' });
    t.clock.advance(60_000);
    const tillAt = at(0);
    expect((await tokens(term).lock(card)).json()).toMatchObject({ State: 'locked' });
    const seen = (await call(staff, 'GET', `/cards/${card}`)).json() as Card;
    expect(seen.locks).toEqual([
      { action: 'lock', by: null, trackingUnitId: term.trackingUnitId, reason: null, at: tillAt },
      { action: 'unlock', by: ownerEmail, trackingUnitId: null, reason: 'Found again', at: unlockAt },
      {
        action: 'lock',
        by: ownerEmail,
        trackingUnitId: null,
        reason: 'Reported lost by the customer',
        at: lockAt,
      },
    ]);
  });

  it('a lock reason longer than 500 characters is refused and changes nothing', async () => {
    const card = `U-${kind}-5`;
    await tokens(term).register(card);
    const res = await call(owner, 'POST', `/cards/${card}/lock`, { reason: 'x'.repeat(501) });
    expect(res.statusCode).toBe(400);
    expect((res.json() as { error: { code: string } }).error.code).toBe('invalid_request');
    expect((await call(owner, 'GET', `/cards/${card}`)).json()).toMatchObject({
      state: 'registered',
      locks: [],
    });
  });

  it('a linked customer card pays from its profile again; its own account, closed at linking, stays closed', async () => {
    const name = encodeURIComponent(term.serviceUserName);
    const profile = await t.admin('POST', `/merchants/${name}/profiles`, { fullName: 'Ada Muster' });
    const profileId = (profile.json() as { id: number }).id;
    const card = `U-${kind}-3`;
    await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: card, tokenType: 0 });
    expect((await tokens(term).add(card, '5')).statusCode).toBe(200);
    await call(owner, 'POST', `/cards/${card}/lock`);
    expect((await upload('UL-3', card)).json()).toMatchObject({ ErrorId: 11005 });
    const res = await call(owner, 'POST', `/cards/${card}/unlock`);
    expect(res.json()).toMatchObject({ state: 'registered', balanceMinor: 500, profileId });
    expect(await accountStatus(card)).toBe('closed');
    expect((await upload('UL-4', card)).statusCode).toBe(200);
    expect((await tokens(term).withdraw(card, '1')).json()).toMatchObject({ Balance: 4 });
  });

  it('a gift card keeps its balance through lock and unlock', async () => {
    const card = `G-${kind}-1`;
    await tokens(term).register(card, { tokenType: '1' });
    await tokens(term).add(card, '20');
    await call(owner, 'POST', `/cards/${card}/lock`);
    expect((await tokens(term).withdraw(card, '1')).json()).toMatchObject({ ErrorId: 13002 });
    expect((await call(owner, 'POST', `/cards/${card}/unlock`)).json()).toMatchObject({
      state: 'registered',
      balanceMinor: 2000,
    });
    expect((await tokens(term).withdraw(card, '20')).json()).toMatchObject({ Balance: 0 });
  });

  it('unlock.security: owners only, with the CSRF token; another merchant’s, a released or an unknown card is unknown', async () => {
    const card = `U-${kind}-4`;
    await tokens(term).register(card);
    await tokens(term).lock(card);
    const byStaff = await call(staff, 'POST', `/cards/${card}/unlock`);
    expect(byStaff.statusCode).toBe(403);
    expect(byStaff.json()).toMatchObject({ error: { code: 'role_forbidden' } });
    const noCsrf = await call({ cookie: owner.cookie }, 'POST', `/cards/${card}/unlock`);
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json()).toMatchObject({ error: { code: 'csrf_token_invalid' } });
    expect((await call(owner, 'GET', `/cards/${card}`)).json()).toMatchObject({ state: 'locked' });

    const foreign = `F-${kind}-1`;
    await tokens(other).register(foreign);
    await tokens(other).lock(foreign);
    const answer = await call(owner, 'POST', `/cards/${foreign}/unlock`);
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({ error: { code: 'card_unknown' } });
    const released = `R-${kind}-1`;
    await tokens(term).register(released);
    await tokens(term).dispose(released);
    expect((await call(owner, 'POST', `/cards/${released}/unlock`)).statusCode).toBe(404);
    expect((await call(owner, 'POST', `/cards/nobody-${kind}/unlock`)).statusCode).toBe(404);
    // Nothing changed for the other merchant's card.
    expect((await tokens(other).add(foreign, '1')).json()).toMatchObject({ ErrorId: 13002 });
  });

  it('the POS interface has no unlock operation', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    const unlocks = Object.keys(doc.paths).filter((p) => /unlock/i.test(p));
    expect(unlocks).toEqual(['/portal/api/v1/cards/{tokenId}/unlock']);
  });
});
