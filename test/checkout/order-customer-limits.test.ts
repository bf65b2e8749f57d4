import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { TIERS } from '../loyalty/tier-scheme.js';
import {
  type CheckoutClient,
  expectLedgerSound,
  orderBody,
  placedAndLeft,
  setupCheckout,
  writtenAtOnce,
} from './checkout-support.js';

/**
 * Campaigns with channel `checkout` apply to online orders with their usage limit per customer and
 * their status tiers (docs/decisions.md, "Usage limits and status tiers on online orders"): an
 * order names its customer, so it is given such a campaign while the customer has uses left,
 * counting the tills' grants and the orders together, or holds one of the tiers; an order refunded
 * in whole releases its uses.
 */
describe.each(databases)('usage limits and status tiers on online orders on %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());

  /** A shop of its own with the test menu and the campaign given. */
  const shopWith = async (campaign: (m: CheckoutClient, u: string) => Promise<object>) => {
    const m = await setupCheckout(t);
    const u = encodeURIComponent(m.serviceUserName);
    const res = await t.admin('POST', `/merchants/${u}/campaigns`, await campaign(m, u));
    expect(res.statusCode, res.body).toBe(201);
    return { m, u, campaignId: (res.json() as { id: number }).id };
  };
  /** 2.00 off article 1003 (12.99), `limit` times per customer. */
  const twoOffLimited = (limit: number) => () =>
    Promise.resolve({
      name: `Two off, ${limit} per customer`,
      type: 'product',
      discount: { amount: 2 },
      products: [{ plu: '1003' }],
      usageLimitPerConsumer: limit,
    });
  const order = (m: CheckoutClient, card: string, totalGross: number) =>
    m.order(orderBody(m, card, [['1003', 1]], { totalGross, balance: { requestCharge: true } }));
  /** The app's quote of one 1003 (POST /api/v1/baskets), for the customer or none: its total. */
  const quote = async (m: CheckoutClient, card: string | undefined) => {
    const body = orderBody(m, card ?? '', [['1003', 1]], { totalGross: undefined, profileReference: card });
    const res = await m.call('POST', '/api/v1/baskets', body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().totalGross as number;
  };
  /** A till's basket of one 1003 for the card, uploaded and granted: the campaign's reward in it. */
  const tillBasket = async (m: CheckoutClient, card: string, basketId: string, campaignId: number) => {
    const body = {
      Timestamp: new Date(t.clock.nowMs()).toISOString(),
      HasDiscounts: false,
      CurrencyISO: 'EUR',
      Positions: [{ PositionId: 1, ProductId: '1003', Unit: 0, Amount: 1, CurrentGrossPrice: 12.99 }],
    };
    const up = await m.term.pos('POST', `/baskets/${basketId}`, {
      body,
      query: { consumerIdentToken: card },
    });
    expect(up.statusCode, up.body).toBe(200);
    const g = await m.term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(g.statusCode, g.body).toBe(200);
    const rewards = (g.json() as { Rewards: { CouponId: number; GrossRewardValue: number }[] }).Rewards;
    return rewards.filter((r) => r.CouponId === campaignId).map((r) => r.GrossRewardValue);
  };
  /** The orders' uses of the campaign, of one customer when given. */
  const usageRows = (campaignId: number, profileId?: number) => {
    let q = t.database.db
      .selectFrom('order_campaign_usages')
      .select(['order_id', 'used', 'released'])
      .where('campaign_id', '=', campaignId);
    if (profileId !== undefined) q = q.where('profile_id', '=', profileId);
    return q.orderBy('order_id').execute();
  };

  it("a campaign twice per customer: the till's grant and the orders count together, the order over the limit is refused naming the total without it, and a refund in whole releases", async () => {
    const { m, campaignId } = await shopWith(twoOffLimited(2));
    const p = await m.profile({ balance: 10_000 });
    // Used once at the till ...
    expect(await tillBasket(m, p.card, 'LIMIT-TILL-1', campaignId)).toEqual([2]);
    // ... once by an order, sent twice with its Idempotency-Key (booked once) ...
    const charged = { totalGross: 1099, balance: { requestCharge: true } };
    const firstBody = orderBody(m, p.card, [['1003', 1]], charged);
    const first = await m.order(firstBody, { key: 'limit-first' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().positions[0].price).toBe(1099);
    expect((await m.order(firstBody, { key: 'limit-first' })).body).toBe(first.body);
    expect(await usageRows(campaignId)).toEqual([{ order_id: expect.any(String), used: 1, released: 0 }]);

    // ... and the limit is reached: the quote, the order and the till price without it.
    expect(await quote(m, p.card)).toBe(1299);
    const over = await order(m, p.card, 1099);
    expect(over.statusCode, over.body).toBe(422);
    expect(over.json().error).toMatchObject({
      code: 'total_mismatch',
      details: { expectedTotalGross: 1299 },
    });
    expect(await usageRows(campaignId)).toHaveLength(1);
    expect((await order(m, p.card, 1299)).statusCode).toBe(200);
    expect(await tillBasket(m, p.card, 'LIMIT-TILL-2', campaignId)).toEqual([]);
    // Another customer has their own two uses; a quote without a customer cannot count them.
    const other = await m.profile({ balance: 10_000 });
    expect((await order(m, other.card, 1099)).statusCode).toBe(200);
    expect(await quote(m, other.card)).toBe(1099);
    expect(await quote(m, undefined)).toBe(1299);

    // A partial refund keeps the use; the refund of the rest releases it for the next order.
    const basketId = firstBody.basketId as string;
    const part = await m.call('POST', `/api/v1/orders/${basketId}/refund`, { amount: 500 });
    expect(part.statusCode, part.body).toBe(200);
    expect((await order(m, p.card, 1099)).statusCode).toBe(422);
    const rest = await m.call('POST', `/api/v1/orders/${basketId}/refund`);
    expect(rest.json().status).toBe('refunded');
    expect(await usageRows(campaignId, p.id)).toEqual([
      { order_id: expect.any(String), used: 1, released: 1 },
    ]);
    const again = await order(m, p.card, 1099);
    expect(again.statusCode, again.body).toBe(200);
    await expectLedgerSound(t);
  });

  it('orders of one customer at once against a limit of two: exactly two are given the reward, the others are refused naming the total without it', async () => {
    const { m, campaignId } = await shopWith(twoOffLimited(2));
    const p = await m.profile({ balance: 0 });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => m.order(orderBody(m, p.card, [['1003', 1]], { totalGross: 1099 }))),
    );
    const placed = answers.filter((a) => a.statusCode === 200);
    expect(placed.map((a) => a.json().positions[0].price)).toEqual([1099, 1099]);
    for (const a of answers.filter((x) => x.statusCode !== 200)) {
      expect(a.statusCode, a.body).toBe(422);
      expect(a.json().error).toMatchObject({ code: 'total_mismatch', details: { expectedTotalGross: 1299 } });
    }
    const rows = await usageRows(campaignId);
    expect(rows.map((r) => r.used)).toEqual([1, 1]);
    const orderIds = await t.database.db
      .selectFrom('checkout_orders')
      .select('id')
      .where('profile_id', '=', p.id)
      .execute();
    expect(rows.map((r) => r.order_id).sort()).toEqual(orderIds.map((o) => o.id).sort());
  });

  it("an order a campaign limited per customer rewards is written in one statement with other requests' orders, its uses checked again under the customer's lock", async () => {
    const { m, campaignId } = await shopWith(twoOffLimited(1));
    const p = await m.profile({ balance: 10_000 });
    const q = await m.profile({ balance: 10_000 });
    const { atOnce, prepared, release } = await writtenAtOnce(t, m);
    // Coffee only: the campaign on cake cannot reward it; cake: priced on the customer's uses and
    // written in one statement, its use with it.
    expect((await atOnce(p.card, [['1001', 2]], 700))?.status).toBe(200);
    const cake = await atOnce(p.card, [['1003', 1]], 1099);
    expect(cake?.status, cake?.body).toBe(200);
    expect(await usageRows(campaignId, p.id)).toEqual([
      { order_id: expect.any(String), used: 1, released: 0 },
    ]);

    // Two orders of one customer in one batch, both priced on no use: the first in the batch is
    // booked, the second left to the booking under the customer's lock (null), which refuses its
    // total.
    const both = [atOnce(q.card, [['1003', 1]], 1099, true), atOnce(q.card, [['1003', 1]], 1099, true)];
    await release(2);
    expect(placedAndLeft(await Promise.all(both))).toEqual({ placed: 1, left: 1, other: 0 });
    expect(await usageRows(campaignId, q.id)).toHaveLength(1);
    const after = await m.order(orderBody(m, q.card, [['1003', 1]], { totalGross: 1099 }));
    expect(after.statusCode, after.body).toBe(422);
    expect(after.json().error.details.expectedTotalGross).toBe(1299);

    // The same with one basketId: the second is not refused as ordered before (by the batch), but
    // left to the separate statements, which price it first and refuse its total.
    const s = await m.profile({ balance: 10_000 });
    const basketId = randomUUID();
    const sameBasket = [1, 2].map(() => atOnce(s.card, [['1003', 1]], 1099, true, { basketId }));
    await release(2);
    expect(placedAndLeft(await Promise.all(sameBasket))).toEqual({ placed: 1, left: 1, other: 0 });
    const second = await m.order(orderBody(m, s.card, [['1003', 1]], { totalGross: 1099, basketId }));
    expect(second.statusCode, second.body).toBe(422);
    expect(second.json().error.code).toBe('total_mismatch');

    // Priced before another order took the use, written after it: left to that booking too.
    const r = await m.profile({ balance: 10_000 });
    const late = atOnce(r.card, [['1003', 1]], 1099, true);
    await prepared(1);
    expect((await m.order(orderBody(m, r.card, [['1003', 1]], { totalGross: 1099 }))).statusCode).toBe(200);
    await release(1);
    expect(await late).toBeNull();
    expect(await usageRows(campaignId, r.id)).toHaveLength(1);
    await expectLedgerSound(t);
  });

  it("a campaign limited to the Silver tier: an order is given it once its customer's grants at the till reach Silver, as the till's next basket is", async () => {
    let schemeId = 0;
    const { m, campaignId } = await shopWith(async (_m, u) => {
      const scheme = await t.admin('POST', `/merchants/${u}/loyaltySchemes`, {
        name: 'Cake card',
        earn: [{ per: 'amount', amount: 1, points: 1 }],
        tiers: TIERS.map((tier) => ({ ...tier, multiplier: 1 })),
        tierBasis: { measure: 'points', period: { rollingDays: 30 } },
      });
      expect(scheme.statusCode, scheme.body).toBe(201);
      schemeId = (scheme.json() as { id: number }).id;
      return {
        name: 'Silver cake',
        type: 'product',
        discount: { amount: 2 },
        products: [{ plu: '1003' }],
        tiers: { schemeId, names: ['Silver', 'Gold'] },
      };
    });
    const p = await m.profile({ balance: 10_000 });
    const other = await m.profile({ balance: 10_000 });
    // No tier: priced without the reward.
    expect((await order(m, p.card, 1299)).statusCode).toBe(200);
    // Nine baskets of 12.99 at the till: over 100 points, Silver from then on, at the till ...
    for (let i = 1; i <= 9; i++) expect(await tillBasket(m, p.card, `SILVER-${i}`, campaignId)).toEqual([]);
    expect(await tillBasket(m, p.card, 'SILVER-10', campaignId)).toEqual([2]);
    // ... and online.
    const silver = await order(m, p.card, 1099);
    expect(silver.statusCode, silver.body).toBe(200);
    expect(silver.json().positions[0].price).toBe(1099);
    expect(await quote(m, p.card)).toBe(1099);
    // Another customer without the tier is not given it.
    const refused = await order(m, other.card, 1099);
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json().error.details.expectedTotalGross).toBe(1299);
    // A tier limit writes no uses.
    expect(await usageRows(campaignId)).toEqual([]);
    expect(schemeId).toBeGreaterThan(0);

    // Written in one statement on the tier it was priced on: a Silver customer's order is, and one
    // priced below Silver, written after a grant lifted its customer to Silver, is left to the
    // booking under the customer's lock, which prices it again.
    const { atOnce, prepared, release } = await writtenAtOnce(t, m);
    const written = await atOnce(p.card, [['1003', 1]], 1099);
    expect(written?.status, written?.body).toBe(200);
    const climber = await m.profile({ balance: 10_000 });
    for (let i = 1; i <= 8; i++) await tillBasket(m, climber.card, `CLIMB-${i}`, campaignId);
    const below = atOnce(climber.card, [['1003', 1]], 1299, true);
    await prepared(1);
    await tillBasket(m, climber.card, 'CLIMB-9', campaignId);
    await release(1);
    expect(await below).toBeNull();
    const again = await m.order(orderBody(m, climber.card, [['1003', 1]], { totalGross: 1299 }));
    expect(again.statusCode, again.body).toBe(422);
    expect(again.json().error.details.expectedTotalGross).toBe(1099);
  });
});
