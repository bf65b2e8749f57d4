import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/ledger-verify.store.js';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { basket, tokens } from './cards-support.js';

describe.each(databases)('profiles and baskets with cards on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let other: Terminal;
  let card: ReturnType<typeof tokens>;
  let n = 0;
  const id = (prefix: string) => `${prefix}-${(n += 1)}`;

  const newProfile = async (body: Record<string, unknown> = {}, merchant = term.serviceUserName) => {
    const res = await t.admin('POST', `/merchants/${encodeURIComponent(merchant)}/profiles`, body);
    expect(res.statusCode).toBe(201);
    return (res.json() as { id: number }).id;
  };
  const upload = (basketId: string, query: Record<string, string> = {}, body: object = basket) =>
    term.pos('POST', `/baskets/${basketId}`, { query, body });
  const storedProfile = async (basketId: string) => {
    const row = await t.database.db
      .selectFrom('baskets')
      .select('profile_id')
      .where('tracking_unit_id', '=', term.trackingUnitId)
      .where('basket_id', '=', basketId)
      .executeTakeFirstOrThrow();
    return row.profile_id;
  };

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    other = await setupTerminal(t);
    card = tokens(term);
  });
  afterAll(async () => {
    if (!t) return;
    expect((await verifyLedger(t.database.db)).violations).toEqual([]);
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
    await t.close();
  });

  it('creates a profile with balance configuration, tags and partner, and reads it back', async () => {
    const profileId = await newProfile({
      fullName: 'Anna Berg',
      email: 'anna@example.org',
      language: 'de-DE',
      tags: ['staff', 'vip', 'staff'],
      partnerUserId: '6f1c2c1e-4a0e-4f43-9a59-8b8f3f1a2b3c',
      balanceConfig: {
        isTopUpAllowed: true,
        isChargeAllowed: false,
        maxAmount: 10000,
        minSingleTopUpAmount: 500,
      },
    });
    const res = await t.admin('GET', `/profiles/${profileId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: profileId,
      fullName: 'Anna Berg',
      language: 'de-DE',
      partner: { userId: '6f1c2c1e-4a0e-4f43-9a59-8b8f3f1a2b3c' },
      balance: {
        totalAmount: 0,
        currency: 'EUR',
        config: {
          isTopUpAllowed: true,
          isChargeAllowed: false,
          maxAmount: 10000,
          minSingleTopUpAmount: 500,
          maxSingleTopUpAmount: null,
          maxMonthlyTopUpAmount: null,
        },
      },
      tokens: [],
    });
    expect((res.json() as { tags: { name: string }[] }).tags.map((x) => x.name).sort()).toEqual([
      'staff',
      'vip',
    ]);
  });

  it('refuses a bad profile body (400) and an unknown merchant or profile (404)', async () => {
    const bad = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
      balanceConfig: { maxAmount: -1 },
    });
    expect(bad.statusCode).toBe(400);
    expect((await t.admin('POST', '/merchants/nobody/profiles', {})).statusCode).toBe(404);
    expect((await t.admin('GET', '/profiles/999999')).statusCode).toBe(404);
    expect((await t.admin('POST', '/profiles/999999/tokens', { tokenId: 'x' })).statusCode).toBe(404);
    expect((await t.admin('POST', '/profiles/999999/otps')).statusCode).toBe(404);
  });

  it("linking an unlinked customer card moves its balance to the profile; the card then shows the profile's", async () => {
    const profileId = await newProfile();
    const a = id('cardA');
    const b = id('cardB');
    await card.register(a);
    await card.add(a, '7.25');
    const link = await t.admin('POST', `/profiles/${profileId}/tokens`, {
      tokenId: a,
      tokenType: 'customer',
    });
    expect(link.statusCode).toBe(200);
    expect(link.json()).toEqual({
      tokenId: a,
      tokenType: 0,
      state: 'registered',
      profileId,
      balance: 725,
      currency: 'EUR',
    });
    // A new id is registered and linked in one call.
    const linkB = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: b, tokenType: 0 });
    expect(linkB.json()).toMatchObject({ tokenId: b, balance: 725 });
    expect((await card.add(b, '1')).json()).toMatchObject({ Balance: 8.25 });
    expect((await card.withdraw(a, '0.25')).json()).toMatchObject({ Balance: 8 });
    const profile = (await t.admin('GET', `/profiles/${profileId}`)).json() as {
      balance: { totalAmount: number };
      tokens: { tokenId: string }[];
    };
    expect(profile.balance.totalAmount).toBe(800);
    expect(profile.tokens.map((x) => x.tokenId)).toEqual([a, b]);
    // Linking again is harmless; another profile cannot take the card.
    expect((await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: a })).statusCode).toBe(200);
    const second = await newProfile();
    expect((await t.admin('POST', `/profiles/${second}/tokens`, { tokenId: a })).statusCode).toBe(409);
    // Dispose detaches the card; the balance stays with the profile.
    expect((await card.dispose(a)).json()).toMatchObject({ State: 'released', Balance: 0 });
    expect(
      ((await t.admin('GET', `/profiles/${profileId}`)).json() as { balance: { totalAmount: number } })
        .balance.totalAmount,
    ).toBe(800);
    expect((await t.admin('POST', `/profiles/${second}/tokens`, { tokenId: a })).json()).toMatchObject({
      balance: 0,
    });
  });

  it('a gift card linked to a profile keeps its own balance; a locked card cannot be linked', async () => {
    const profileId = await newProfile();
    const g = id('gift');
    await card.register(g, { tokentype: 'gift' });
    await card.add(g, '30');
    const link = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: g, tokenType: 1 });
    expect(link.json()).toMatchObject({ tokenType: 1, balance: 3000 });
    expect(
      ((await t.admin('GET', `/profiles/${profileId}`)).json() as { balance: { totalAmount: number } })
        .balance.totalAmount,
    ).toBe(0);
    expect(
      (await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: g, tokenType: 0 })).statusCode,
    ).toBe(400);
    const l = id('locked');
    await card.register(l);
    await card.lock(l);
    const res = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: l });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'card_locked' } });
  });

  it('issues one-time passwords that live five minutes', async () => {
    const profileId = await newProfile();
    const res = await t.admin('POST', `/profiles/${profileId}/otps`);
    expect(res.statusCode).toBe(201);
    const { otp, expiresAt } = res.json() as { otp: string; expiresAt: string };
    expect(otp).toMatch(/^\d{8}$/);
    expect(Date.parse(expiresAt) - t.clock.ms).toBe(5 * 60_000);
    const rows = await t.database.db.selectFrom('profile_otps').select('otp_sha256').execute();
    expect(rows.some((r) => r.otp_sha256 === otp)).toBe(false);
  });

  describe('baskets', () => {
    it('consumerIdentToken and giftCardId: the response carries Balances and the basket the profile', async () => {
      const profileId = await newProfile();
      const c = id('bc');
      const g = id('bg');
      await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: c });
      await card.add(c, '4.20');
      await card.register(g, { tokentype: 'gift' });
      await card.add(g, '15');
      const res = await upload('b-1', { consumerIdentToken: c, giftCardId: g });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        Rewards: [],
        LoyaltyInfo: [],
        Balances: [
          { TokenId: c, Balance: 4.2, CurrencyISO: 'EUR' },
          { TokenId: g, Balance: 15, CurrencyISO: 'EUR' },
        ],
      });
      expect(await storedProfile('b-1')).toBe(profileId);
      const xml = await term.pos('POST', '/baskets/b-1x', {
        query: { giftCardId: g },
        body: basket,
        headers: { accept: 'application/xml' },
      });
      expect(xml.body).toContain(`<Balances><TokenBalance><TokenId>${g}</TokenId><Balance>15</Balance>`);
    });

    it('without a card there are no Balances', async () => {
      const res = await upload('b-2');
      expect(res.json()).toEqual({ Rewards: [], LoyaltyInfo: [] });
    });

    it('unknown, locked and expired cards answer 11004 to 11009', async () => {
      const locked = id('lk');
      await card.register(locked);
      await card.lock(locked);
      const expired = id('ex');
      await card.register(expired, { expiresAt: '2021-01-01T00:00:00+01:00' });
      const released = id('rl');
      await card.register(released);
      await card.dispose(released);
      const foreign = id('fo');
      await tokens(other).register(foreign);
      const cases: [Record<string, string>, number][] = [
        [{ consumerIdentToken: 'nope' }, 11004],
        [{ consumerIdentToken: released }, 11004],
        [{ consumerIdentToken: foreign }, 11004],
        [{ consumerIdentToken: locked }, 11005],
        [{ consumerIdentToken: expired }, 11006],
        [{ giftCardId: 'nope' }, 11007],
        [{ giftCardId: foreign }, 11007],
        [{ giftCardId: locked }, 11008],
        [{ giftCardId: expired }, 11009],
      ];
      for (const [query, errorId] of cases) {
        const res = await upload(id('bad'), query);
        expect(res.statusCode, JSON.stringify(query)).toBe(400);
        expect(res.json(), JSON.stringify(query)).toMatchObject({ ErrorId: errorId });
      }
      const stored = await t.database.db
        .selectFrom('baskets')
        .select('basket_id')
        .where('basket_id', 'like', 'bad-%')
        .execute();
      expect(stored).toEqual([]);
    });

    it('a ContextIdentifiers entry that is a customer-card id or a live OTP identifies the consumer', async () => {
      const profileId = await newProfile();
      const c = id('ctx');
      await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: c });
      await upload('b-ctx-card', {}, { ...basket, ContextIdentifiers: ['SUMMER', c] });
      expect(await storedProfile('b-ctx-card')).toBe(profileId);

      const second = await newProfile();
      const { otp } = (await t.admin('POST', `/profiles/${second}/otps`)).json() as { otp: string };
      await upload('b-ctx-otp', {}, { ...basket, ContextIdentifiers: [otp] });
      expect(await storedProfile('b-ctx-otp')).toBe(second);

      t.clock.advance(5 * 60_000 + 1);
      await upload('b-ctx-late', {}, { ...basket, ContextIdentifiers: [otp] });
      expect(await storedProfile('b-ctx-late')).toBe(null);
      // Another merchant's card id identifies nobody there.
      const foreign = id('fctx');
      await tokens(other).register(foreign);
      await upload('b-ctx-foreign', {}, { ...basket, ContextIdentifiers: [foreign] });
      expect(await storedProfile('b-ctx-foreign')).toBe(null);
    });
  });
});
