import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierStatuses } from '../../src/loyalty/tiers.store.js';
import { type CheckoutClient, orderBody, setupCheckout } from '../checkout/checkout-support.js';
import { secondTill } from '../notifications/purchase-history.js';
import { type TestApp, databases, merchantIdOf, setupTerminal, startApp } from '../support/harness.js';
import { tierScheme } from './tier-scheme.js';
import { tokens } from '../cards/cards-support.js';

/**
 * Spend tiers net of returns (docs/decisions.md, "Status tiers", "Spend net of returns"): a
 * consumer's spend is the gross of their granted baskets in the period minus the line gross their
 * returns in it took back; a return that takes the spend below a threshold lowers the tier and
 * writes its event, as for points. Checkout orders do not count, nor baskets at outlets a scheme
 * limited to outlets does not run at.
 */

/** A till of a merchant: its first outlet's or another's. */
type Till = Awaited<ReturnType<typeof secondTill>>;

describe.each(databases)('spend tiers net of returns on %s', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let merchantId: number;
  beforeAll(async () => {
    t = await startApp(kind);
    c = await setupCheckout(t);
    merchantId = await merchantIdOf(t, c.term);
    const s = await t.admin(
      'POST',
      `/merchants/${c.serviceUserName}/loyaltySchemes`,
      tierScheme({
        name: 'Breakfast club',
        tiers: [
          { name: 'Regular', threshold: 9, multiplier: 1.25 },
          { name: 'VIP', threshold: 100, multiplier: 2 },
        ],
        tierBasis: { measure: 'spend', period: { rollingDays: 30 } },
      }),
    );
    expect(s.statusCode, s.body).toBe(201);
  });
  afterAll(() => t?.close());

  const spend = async (profileId: number) =>
    (await tierStatuses(t.database.db, merchantId, { profileId }, t.clock.nowMs()))[0];
  const tierEvents = async (profileId: number) =>
    (
      await t.database.db
        .selectFrom('outbox_messages')
        .select('payload')
        .where('topic', '=', 'loyalty.tier_changed')
        .orderBy('id')
        .execute()
    )
      .map((r) => r.payload)
      .filter((e) => e.profileId === profileId);

  it('a return takes its line gross off the spend: below the threshold the tier drops and the event is written; the returns of a basket add up to its gross', async () => {
    const p = await c.profile();
    const basketId = `SPEND-${p.id}`;
    const body = {
      Timestamp: new Date(t.clock.nowMs()).toISOString(),
      HasDiscounts: false,
      Positions: [
        { PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 3.5 },
        { PositionId: 2, ProductId: '1002', Unit: 0, Amount: 3, CurrentGrossPrice: 0.75 },
      ],
    };
    const up = await c.term.pos('POST', `/baskets/${basketId}`, {
      body,
      query: { consumerIdentToken: p.card },
    });
    expect(up.statusCode, up.body).toBe(200);
    const g = await c.term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(g.statusCode, g.body).toBe(200);
    // 7.00 + 2.25 = 9.25 spent: Regular.
    expect(await spend(p.id)).toMatchObject({ value: 925, tier: { name: 'Regular' } });
    const giveBack = async (returnId: string, positions: { PositionId: number; Amount: number }[]) => {
      const r = await c.term.pos('POST', `/baskets/${basketId}/return`, {
        body: { ReturnId: returnId, Positions: positions },
        sign: `${basketId}${returnId}`,
      });
      expect(r.statusCode, r.body).toBe(200);
    };

    // One cappuccino back: 9.25 - 3.50 = 5.75, below Regular.
    await giveBack('R1', [{ PositionId: 1, Amount: 1 }]);
    expect(await spend(p.id)).toMatchObject({ value: 575, tier: null });
    const events = await tierEvents(p.id);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({
      measure: 'spend',
      valueBefore: 925,
      valueAfter: 575,
      before: { name: 'Regular' },
      after: null,
      upgrade: false,
      cause: 'return',
    });
    // The same return again books nothing.
    await giveBack('R1', [{ PositionId: 1, Amount: 1 }]);
    expect((await spend(p.id))?.value).toBe(575);

    // The 0.75 pieces one by one and the last cappuccino: the returns add up to the basket's gross.
    await giveBack('R2', [{ PositionId: 2, Amount: 1 }]);
    expect((await spend(p.id))?.value).toBe(500);
    await giveBack('R3', [{ PositionId: 2, Amount: 0.5 }]);
    expect((await spend(p.id))?.value).toBe(462);
    await giveBack('R4', [
      { PositionId: 1, Amount: 1 },
      { PositionId: 2, Amount: 1.5 },
    ]);
    expect((await spend(p.id))?.value).toBe(0);
    // No tier changed since the first return: no further event.
    expect(await tierEvents(p.id)).toHaveLength(2);
  });

  type Answer = { LoyaltyInfo: { Details: { PreviousPoints: number; NewPoints: number }[] }[] | null };
  /**
   * A scheme with one spend tier (Regular from 9.00, points doubled, 30 days) at the till's
   * merchant, and a member with a customer card: their standing in it.
   */
  const spendClub = async (till: Till, patch: object, token: string) => {
    const hu = encodeURIComponent(till.serviceUserName);
    const s = await t.admin(
      'POST',
      `/merchants/${hu}/loyaltySchemes`,
      tierScheme({
        tiers: [{ name: 'Regular', threshold: 9, multiplier: 2 }],
        tierBasis: { measure: 'spend', period: { rollingDays: 30 } },
        ...patch,
      }),
    );
    expect(s.statusCode, s.body).toBe(201);
    const p = await t.admin('POST', `/merchants/${hu}/profiles`, { fullName: `Member ${token}` });
    const profileId = (p.json() as { id: number }).id;
    await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: token, tokenType: 0 });
    const clubMerchantId = await merchantIdOf(t, till);
    return async () => (await tierStatuses(t.database.db, clubMerchantId, { profileId }, t.clock.nowMs()))[0];
  };
  /** One coffee at the till's price, now, with the card; granted unless told not to. */
  const buy = async (till: Till, token: string, basketId: string, price: number, grant = true) => {
    const up = await till.pos('POST', `/baskets/${basketId}`, {
      body: {
        Timestamp: new Date(t.clock.nowMs()).toISOString(),
        HasDiscounts: false,
        Positions: [{ PositionId: 1, ProductId: 'COFFEE', Unit: 0, Amount: 1, CurrentGrossPrice: price }],
      },
      query: { consumerIdentToken: token },
    });
    expect(up.statusCode, up.body).toBe(200);
    if (!grant) return up.json() as Answer;
    const g = await till.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(g.statusCode, g.body).toBe(200);
    return g.json() as Answer;
  };
  /** The basket's coffee returned. */
  const giveBack = async (till: Till, basketId: string) => {
    const r = await till.pos('POST', `/baskets/${basketId}/return`, {
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 1 }] },
      sign: `${basketId}R1`,
    });
    expect(r.statusCode, r.body).toBe(200);
  };

  it('a scheme limited to an outlet counts the spend of its baskets at that outlet only, and of their returns only', async () => {
    const home = await setupTerminal(t);
    const away = await secondTill(t, home, 'Station');
    const standing = await spendClub(home, { name: 'Home club', outletIds: [home.outletId] }, 'SPENDOUT-1');
    const newPoints = (a: Answer) => a.LoyaltyInfo?.[0]?.Details[0]?.NewPoints;

    // 5.00 at the scheme's outlet, 20.00 at the other: only the 5.00 is the scheme's spend.
    await buy(home, 'SPENDOUT-1', 'SPENDOUT-B-1', 5);
    await buy(away, 'SPENDOUT-1', 'SPENDOUT-B-2', 20);
    expect(await standing()).toMatchObject({ value: 500, tier: null });
    // So the next basket at the scheme's outlet earns at the base rate, at the upload and the grant
    // (as Regular it would earn twice its 3 points).
    const uploaded = await buy(home, 'SPENDOUT-1', 'SPENDOUT-B-3', 3, false);
    expect(newPoints(uploaded)).toBe(8);
    const granted = await home.pos('POST', '/baskets/SPENDOUT-B-3/grant', {
      sign: 'SPENDOUT-B-3',
      query: { redeemedInPos: 'true' },
    });
    expect(newPoints(granted.json() as Answer)).toBe(8);
    expect(await standing()).toMatchObject({ value: 800, tier: null });
    // A return of the basket bought elsewhere takes nothing off; one of a basket at the outlet does.
    await giveBack(away, 'SPENDOUT-B-2');
    expect((await standing())?.value).toBe(800);
    await giveBack(home, 'SPENDOUT-B-1');
    expect((await standing())?.value).toBe(300);
  });

  it('a scheme valid from a date counts the spend of baskets bought from then on only, and of their returns only', async () => {
    const till = await setupTerminal(t);
    const validFrom = new Date(t.clock.nowMs() + 60_000).toISOString();
    const standing = await spendClub(till, { name: 'New club', validFrom }, 'SPENDVALID-1');

    // 20.00 the minute before the scheme starts: no spend of the scheme (it earned no points either).
    await buy(till, 'SPENDVALID-1', 'SPENDVALID-B-1', 20);
    t.clock.advance(120_000);
    expect(await standing()).toMatchObject({ value: 0, tier: null });
    await buy(till, 'SPENDVALID-1', 'SPENDVALID-B-2', 5);
    expect(await standing()).toMatchObject({ value: 500, tier: null });
    // A return of the basket bought before takes nothing off; one of the basket bought since does.
    await giveBack(till, 'SPENDVALID-B-1');
    expect((await standing())?.value).toBe(500);
    await giveBack(till, 'SPENDVALID-B-2');
    expect((await standing())?.value).toBe(0);
  });

  it("what a customer card bought before it was linked counts for the profile's spend, as its points do, and so do those baskets' returns", async () => {
    const card = `early-${randomUUID().slice(0, 8)}`;
    expect((await tokens(c.term).register(card, { tokentype: '0' })).statusCode).toBe(200);
    await buy(c.term, card, `${card}-1`, 6);
    await buy(c.term, card, `${card}-2`, 5);
    const p = await t.admin('POST', `/merchants/${c.serviceUserName}/profiles`, { fullName: 'Early Bird' });
    const profileId = (p.json() as { id: number }).id;
    // Nothing of the card's yet: the profile has bought nothing.
    expect(await spend(profileId)).toMatchObject({ value: 0, tier: null });
    const linked = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: card, tokenType: 0 });
    expect(linked.statusCode, linked.body).toBe(200);
    // 6.00 + 5.00 bought with the card: Regular, as its points would have made it.
    expect(await spend(profileId)).toMatchObject({ value: 1100, tier: { name: 'Regular' } });
    await buy(c.term, card, `${card}-3`, 2);
    expect((await spend(profileId))?.value).toBe(1300);
    // A basket bought before the link comes back: its gross leaves the profile's spend.
    await giveBack(c.term, `${card}-2`);
    expect(await spend(profileId)).toMatchObject({ value: 800, tier: null });
  });

  it('a checkout order paid from the balance is no spend for the scheme', async () => {
    const p = await c.profile({ balance: 5000 });
    const order = await c.order(
      orderBody(c, p.card, [['1003', 1]], { totalGross: 1299, balance: { requestCharge: true } }),
    );
    expect(order.statusCode, order.body).toBe(200);
    expect(await spend(p.id)).toMatchObject({ value: 0, tier: null });
    expect(await tierEvents(p.id)).toEqual([]);
  });
});
