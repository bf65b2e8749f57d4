import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/ledger-verify.store.js';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { tokens } from './cards-support.js';

describe.each(databases)('cards (tokens) on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let other: Terminal;
  let card: ReturnType<typeof tokens>;
  let n = 0;
  const id = (prefix: string) => `${prefix}-${(n += 1)}`;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    other = await setupTerminal(t);
    card = tokens(term);
  });
  afterAll(async () => {
    if (!t) return;
    const report = await verifyLedger(t.database.db);
    expect(report.violations).toEqual([]);
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
    await t.close();
  });

  it('registers a customer card by default and answers its state and balance', async () => {
    const c = id('cust');
    const res = await card.register(c);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      TokenId: c,
      TokenType: 0,
      State: 'registered',
      Balance: 0,
      CurrencyISO: 'EUR',
    });
  });

  it('registers a gift card with tokentype=gift or 1 and answers XML without Accept', async () => {
    const g = id('gift');
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/pos/v3/tokens/${g}?tokentype=gift`,
      headers: {
        devkey: term.devKey,
        trackingunitid: term.trackingUnitId,
        'content-type': 'application/xml',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(
      `<Token><TokenId>${g}</TokenId><TokenType>1</TokenType><State>registered</State>`,
    );
    const g2 = id('gift');
    expect((await card.register(g2, { tokentype: '1' })).json()).toMatchObject({ TokenType: 1 });
  });

  it('an unknown tokentype or a bad expiresAt is 400 / 1000', async () => {
    expect((await card.register(id('x'), { tokentype: 'silver' })).json()).toMatchObject({ ErrorId: 1000 });
    expect((await card.register(id('x'), { expiresAt: 'tomorrow' })).json()).toMatchObject({ ErrorId: 1000 });
  });

  it('registering a registered, locked or expired id is 13001; a released id can be registered again', async () => {
    const c = id('dup');
    await card.register(c);
    const again = await card.register(c);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ ErrorId: 13001 });

    const l = id('locked');
    await card.register(l);
    await card.lock(l);
    expect((await card.register(l)).json()).toMatchObject({ ErrorId: 13001 });

    const e = id('expired');
    const past = await card.register(e, { expiresAt: '2020-01-01T00:00:00Z' });
    expect(past.json()).toMatchObject({ State: 'expired' });
    expect((await card.register(e)).json()).toMatchObject({ ErrorId: 13001 });

    const r = id('released');
    await card.register(r, { tokentype: 'gift' });
    expect((await card.dispose(r)).json()).toMatchObject({ State: 'released' });
    const re = await card.register(r);
    expect(re.statusCode).toBe(200);
    expect(re.json()).toMatchObject({ TokenType: 0, State: 'registered', Balance: 0 });
  });

  it('a card becomes expired at expiresAt', async () => {
    const c = id('soon');
    const at = new Date(t.clock.ms + 60_000).toISOString();
    await card.register(c, { expiresAt: at });
    expect((await card.add(c, '5.00')).statusCode).toBe(200);
    t.clock.advance(61_000);
    const res = await card.add(c, '1.00');
    expect(res.json()).toMatchObject({ ErrorId: 13002 });
  });

  it('lock is final: balance operations answer 13002, a second lock answers the state again', async () => {
    const c = id('lockme');
    await card.register(c, { tokentype: 'gift' });
    await card.add(c, '10');
    const res = await card.lock(c);
    expect(res.json()).toEqual({
      TokenId: c,
      TokenType: 1,
      State: 'locked',
      Balance: 10,
      CurrencyISO: 'EUR',
    });
    expect((await card.add(c, '1')).json()).toMatchObject({ ErrorId: 13002 });
    expect((await card.withdraw(c, '1')).json()).toMatchObject({ ErrorId: 13002 });
    expect((await card.dispose(c)).json()).toMatchObject({ ErrorId: 13002 });
    expect((await card.lock(c)).json()).toMatchObject({ State: 'locked' });
  });

  it('dispose needs a zero own balance (13005)', async () => {
    const c = id('full');
    await card.register(c, { tokentype: 'gift' });
    await card.add(c, '3.50');
    const res = await card.dispose(c);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 13005 });
    await card.withdraw(c, '3.50');
    expect((await card.dispose(c)).json()).toMatchObject({ State: 'released', Balance: 0 });
    expect((await card.add(c, '1')).json()).toMatchObject({ ErrorId: 13000 });
  });

  it('addBalance and withdrawBalance answer TokenId, Balance, CurrencyISO, TransactionId', async () => {
    const c = id('money');
    await card.register(c);
    const add = await card.add(c, '12.5');
    expect(add.statusCode).toBe(200);
    const body = add.json() as { TransactionId: string };
    expect(body).toEqual({
      TokenId: c,
      Balance: 12.5,
      CurrencyISO: 'EUR',
      TransactionId: body.TransactionId,
    });
    expect(body.TransactionId).toMatch(/^[0-9a-f-]{36}$/);
    const w = await card.withdraw(c, '2.45', 'till-1-bill-77');
    expect(w.json()).toEqual({
      TokenId: c,
      Balance: 10.05,
      CurrencyISO: 'EUR',
      TransactionId: 'till-1-bill-77',
    });
  });

  it('amounts must be > 0 with at most two decimals (13006), nothing booked', async () => {
    const c = id('amt');
    await card.register(c);
    for (const bad of ['0', '0.00', '-1', '1.001', 'abc', '1e2', '', ' 1', '1,5']) {
      const res = await card.add(c, bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json(), bad).toMatchObject({ ErrorId: 13006 });
    }
    const w = await card.withdraw(c, '0.001');
    expect(w.json()).toMatchObject({ ErrorId: 13006 });
    expect((await card.add(c, '0.01')).json()).toMatchObject({ Balance: 0.01 });
  });

  it('insufficient balance is 13003 and books nothing', async () => {
    const c = id('poor');
    await card.register(c);
    await card.add(c, '5');
    const res = await card.withdraw(c, '5.01');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 13003 });
    expect((await card.withdraw(c, '5')).json()).toMatchObject({ Balance: 0 });
  });

  it('unknown card is 404 / 13000 for every operation', async () => {
    const c = id('ghost');
    for (const res of [
      await card.lock(c),
      await card.dispose(c),
      await card.add(c, '1'),
      await card.withdraw(c, '1'),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ ErrorId: 13000 });
    }
  });

  it("another merchant's card behaves exactly like an unknown one", async () => {
    const c = id('foreign');
    const mine = tokens(other);
    await mine.register(c, { tokentype: 'gift' });
    await mine.add(c, '20');
    const ghost = id('ghost');
    const pairs: [string, (x: string) => ReturnType<typeof card.lock>][] = [
      ['lock', (x) => card.lock(x)],
      ['dispose', (x) => card.dispose(x)],
      ['add', (x) => card.add(x, '1')],
      ['withdraw', (x) => card.withdraw(x, '1')],
    ];
    for (const [name, op] of pairs) {
      const a = await op(c);
      const b = await op(ghost);
      expect(a.statusCode, name).toBe(b.statusCode);
      expect(a.json(), name).toEqual(b.json());
    }
    // The same id registers independently at this merchant: two unrelated cards.
    expect((await card.register(c)).json()).toMatchObject({ State: 'registered', Balance: 0 });
    expect((await mine.withdraw(c, '1')).json()).toMatchObject({ Balance: 19 });
  });

  it('SecurityToken over id + amount as in the URL: missing or wrong is 401, nothing booked', async () => {
    const c = id('sec');
    await card.register(c);
    const missing = await term.pos('POST', `/tokens/${c}/addBalance`, { query: { balanceToAdd: '5' } });
    expect(missing.statusCode).toBe(401);
    const wrong = await term.pos('POST', `/tokens/${c}/addBalance`, {
      query: { balanceToAdd: '5' },
      sign: `${c}5.00`,
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ ErrorId: 1003 });
    expect((await card.add(c, '5.00')).json()).toMatchObject({ Balance: 5 });
  });

  it('token operations need an activated unit (403)', async () => {
    const inactive = await setupTerminal(t, { activate: false });
    const res = await tokens(inactive).register(id('x'));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ ErrorId: 1004 });
  });

  it('a repeated transactionId books nothing and answers as the first time', async () => {
    const c = id('retry');
    await card.register(c);
    await card.add(c, '10');
    const first = await card.withdraw(c, '4', 'tx-retry-1');
    const second = await card.withdraw(c, '4', 'tx-retry-1');
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect((await card.withdraw(c, '0.01', 'tx-check')).json()).toMatchObject({ Balance: 5.99 });
  });

  it('the same transactionId for another amount, card or operation is 13007', async () => {
    const c = id('reuse');
    const d = id('reuse');
    await card.register(c);
    await card.register(d);
    await card.add(c, '10', 'tx-reuse');
    expect((await card.add(c, '11', 'tx-reuse')).json()).toMatchObject({ ErrorId: 13007 });
    expect((await card.add(d, '10', 'tx-reuse')).json()).toMatchObject({ ErrorId: 13007 });
    expect((await card.withdraw(c, '10', 'tx-reuse')).json()).toMatchObject({ ErrorId: 13007 });
  });

  it('maxAmount of a linked profile: above it is 13004', async () => {
    const p = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
      fullName: 'Max',
      balanceConfig: { maxAmount: 5000 },
    });
    const profileId = (p.json() as { id: number }).id;
    const c = id('capped');
    await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: c });
    expect((await card.add(c, '50')).json()).toMatchObject({ Balance: 50 });
    const res = await card.add(c, '0.01');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 13004 });
  });
});
