import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basket, tokens } from '../cards/cards-support.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { type PortalSession, portalCall, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

interface Card {
  otps: { by: string; issuedAt: string; expiresAt: string }[];
}

// docs/decisions.md, "Gift-card privacy and hardened pages": a one-time password pays from the
// consumer's balance as their card does, so only an owner issues one, and who did is recorded.
describe.each(databases)('one-time passwords for a consumer, issued in the merchant portal (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;
  let staff: PortalSession;
  const ownerEmail = `otp-owner-${kind}@example.test`;
  const staffEmail = `otp-staff-${kind}@example.test`;
  let n = 0;

  const call = (s: PortalSession, url: string) => portalCall(t, s, 'POST', url);
  const counts = async () => ({
    otps: Number(
      (
        await t.database.db
          .selectFrom('profile_otps')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
    issues: Number(
      (
        await t.database.db
          .selectFrom('card_otp_issues')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
  });

  /** A consumer profile with a card of the given type linked to it. */
  async function linkedCard(
    tokenType: 'customer' | 'gift' = 'customer',
  ): Promise<{ card: string; profileId: number }> {
    n += 1;
    const profile = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
      fullName: 'Ada Muster',
      email: `ada-otp-${kind}-${n}@example.org`,
    });
    expect(profile.statusCode, profile.body).toBe(201);
    const profileId = (profile.json() as { id: number }).id;
    const card = `otp-${kind}-${n}`;
    const link = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: card, tokenType });
    expect(link.statusCode, link.body).toBe(200);
    return { card, profileId };
  }

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    const users = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
    expect((await t.admin('POST', users, { email: ownerEmail, password: PASSWORD })).statusCode).toBe(201);
    expect((await t.admin('POST', users, { email: staffEmail, password: PASSWORD })).statusCode).toBe(201);
    owner = await portalSession(t, ownerEmail, PASSWORD);
    staff = await portalSession(t, staffEmail, PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("an owner issues one: it identifies the consumer at the till, and the card's history names the owner, never the password", async () => {
    const { card, profileId } = await linkedCard();
    const issuedAt = new Date(t.clock.nowMs()).toISOString();
    const res = await call(owner, `/cards/${card}/otps`);
    expect(res.statusCode, res.body).toBe(201);
    const { otp, expiresAt } = res.json() as { otp: string; expiresAt: string };
    expect(otp).toMatch(/^[0-9]{8}$/);
    expect(Date.parse(expiresAt) - Date.parse(issuedAt)).toBe(5 * 60_000);

    // The password stands for the consumer at the till: the basket is theirs.
    const up = await term.pos('POST', `/baskets/otp-basket-${kind}`, {
      body: { ...basket, ContextIdentifiers: [otp] },
    });
    expect(up.statusCode, up.body).toBe(200);
    const stored = await t.database.db
      .selectFrom('baskets')
      .select('profile_id')
      .where('basket_id', '=', `otp-basket-${kind}`)
      .executeTakeFirstOrThrow();
    expect(stored.profile_id).toBe(profileId);

    const view = await portalCall(t, owner, 'GET', `/cards/${card}`);
    expect(view.statusCode).toBe(200);
    expect((view.json() as Card).otps).toEqual([{ by: ownerEmail, issuedAt, expiresAt }]);
    expect(view.body).not.toContain(otp);
    // The record is who, when and until when, nothing that could be used.
    const row = await t.database.db.selectFrom('card_otp_issues').selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(otp);
  });

  it('staff cannot issue one: 403 role_forbidden, and no password exists afterwards', async () => {
    const { card } = await linkedCard();
    const before = await counts();
    const res = await call(staff, `/cards/${card}/otps`);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: { code: 'role_forbidden' } });
    expect(await counts()).toEqual(before);
    // Staff still sees the card (viewing is theirs), without any issue on it.
    const view = await portalCall(t, staff, 'GET', `/cards/${card}`);
    expect(view.statusCode).toBe(200);
    expect((view.json() as Card).otps).toEqual([]);
  });

  it('no password for a gift card linked to a profile (a gift card never identifies a consumer), none for a locked card', async () => {
    const gift = await linkedCard('gift');
    const before = await counts();
    const giftRes = await call(owner, `/cards/${gift.card}/otps`);
    expect(giftRes.statusCode).toBe(404);
    expect(giftRes.json()).toMatchObject({ error: { code: 'card_unknown' } });

    const { card } = await linkedCard();
    expect((await tokens(term).lock(card)).statusCode).toBe(200);
    const lockedRes = await call(owner, `/cards/${card}/otps`);
    expect(lockedRes.statusCode).toBe(400);
    expect(lockedRes.json()).toMatchObject({ error: { code: 'card_locked' } });

    const bare = `otp-bare-${kind}`;
    expect((await tokens(term).register(bare)).statusCode).toBe(200);
    expect((await call(owner, `/cards/${bare}/otps`)).statusCode).toBe(404);
    expect(await counts()).toEqual(before);
  });
});
