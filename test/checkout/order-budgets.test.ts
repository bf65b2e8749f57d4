import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import {
  type CheckoutClient,
  expectLedgerSound,
  orderBody,
  placedAndLeft,
  setupCheckout,
  writtenAtOnce,
} from './checkout-support.js';

/**
 * An online order counts against a campaign's budget as a till's grant does (docs/decisions.md, "A
 * campaign with a budget and online orders"): it is given the reward only while the reward fits
 * what is left, whole, books its discount and one redemption, and gives them back when it is
 * refunded in whole.
 */
describe.each(databases)('a campaign with a budget and online orders on %s', (kind) => {
  let t: TestApp;
  let m: CheckoutClient;
  let u: string;

  beforeAll(async () => {
    t = await startApp(kind);
    m = await setupCheckout(t);
    u = encodeURIComponent(m.serviceUserName);
  });
  afterAll(() => t?.close());

  /** 2.00 off article 1003 (12.99), with the budget given. */
  const twoOff = (name: string, budget?: Record<string, unknown>) => ({
    name,
    type: 'product',
    discount: { amount: 2 },
    products: [{ plu: '1003' }],
    ...(budget === undefined ? {} : { budget }),
  });
  const create = async (body: Record<string, unknown>) => {
    const res = await t.admin('POST', `/merchants/${u}/campaigns`, body);
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { id: number }).id;
  };
  const end = (id: number) => t.admin('DELETE', `/merchants/${u}/campaigns/${id}`);
  /** Orders `positions` charged to the card's balance: the order's answer, or the refusal. */
  const order = (card: string, positions: [string, number][], totalGross: number) =>
    m.order(orderBody(m, card, positions, { totalGross, balance: { requestCharge: true } }));
  const budgetRows = (campaignId: number) =>
    t.database.db
      .selectFrom('campaign_budget_usage')
      .select(['period', 'discount_minor', 'redemptions'])
      .where('campaign_id', '=', campaignId)
      .execute();
  const orderBookings = (campaignId: number) =>
    t.database.db
      .selectFrom('order_budget_bookings')
      .select(['order_id', 'discount_minor', 'redemptions', 'given_back_at'])
      .where('campaign_id', '=', campaignId)
      .orderBy('booked_at')
      .execute();
  const refund = (basketId: string, body?: unknown) =>
    m.call('POST', `/api/v1/orders/${basketId}/refund`, body);
  /** A till's basket of one 1003 (12.99), uploaded: its rewards. */
  const tillRewards = async (basketId: string) => {
    const up = await m.term.pos('POST', `/baskets/${basketId}`, {
      body: {
        Timestamp: '2026-03-02T12:00:00+01:00',
        HasDiscounts: false,
        CurrencyISO: 'EUR',
        Positions: [{ PositionId: 1, ProductId: '1003', Unit: 0, Amount: 1, CurrentGrossPrice: 12.99 }],
      },
    });
    expect(up.statusCode, up.body).toBe(200);
    return up.json().Rewards as unknown[];
  };

  it('orders are given the reward while the budget has redemptions left, book them, and the next order and the tills are priced without it', async () => {
    const budgeted = await create(twoOff('Two off, two redemptions', { redemptions: 2 }));
    const tenOff = await create({
      name: 'Ten off 1001',
      type: 'product',
      discount: { percent: 10 },
      products: [{ plu: '1001' }],
    });
    const p = await m.profile({ balance: 10_000 });
    const lines: [string, number][] = [
      ['1003', 1],
      ['1001', 1],
    ];
    // The quote shows the reward while it fits.
    const quote = await m.call(
      'POST',
      '/api/v1/baskets',
      orderBody(m, p.card, lines, { totalGross: undefined }),
    );
    expect(quote.statusCode, quote.body).toBe(200);
    expect(quote.json().totalGross).toBe(1099 + 315);
    for (let i = 0; i < 2; i += 1) {
      const res = await order(p.card, lines, 1099 + 315);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().positions.map((x: { price: number }) => x.price)).toEqual([1099, 315]);
    }
    expect(await budgetRows(budgeted)).toEqual([{ period: 'total', discount_minor: 400, redemptions: 2 }]);
    expect((await orderBookings(budgeted)).map((b) => [b.discount_minor, b.redemptions])).toEqual([
      [200, 1],
      [200, 1],
    ]);
    // No redemption left: the total with the reward is refused, naming the total without it.
    const past = await order(p.card, lines, 1099 + 315);
    expect(past.statusCode).toBe(422);
    expect(past.json().error).toMatchObject({
      code: 'total_mismatch',
      details: { expectedTotalGross: 1299 + 315 },
    });
    expect((await order(p.card, lines, 1299 + 315)).statusCode).toBe(200);
    expect(await budgetRows(budgeted)).toEqual([{ period: 'total', discount_minor: 400, redemptions: 2 }]);
    // One budget for every channel: the orders used it up for the tills too.
    expect(await tillRewards('budget-till-1')).toEqual([]);
    await expectLedgerSound(t);
    await end(budgeted);
    await end(tenOff);
  });

  it('an order sent again with its Idempotency-Key is answered as the first time and books the budget once', async () => {
    const budgeted = await create(twoOff('Two off, retried', { redemptions: 3 }));
    const p = await m.profile({ balance: 10_000 });
    const body = orderBody(m, p.card, [['1003', 1]], { totalGross: 1099, balance: { requestCharge: true } });
    const first = await m.order(body, { key: `budget-retry-${kind}` });
    const again = await m.order(body, { key: `budget-retry-${kind}` });
    expect(first.statusCode, first.body).toBe(200);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.body).toBe(first.body);
    expect(await budgetRows(budgeted)).toEqual([{ period: 'total', discount_minor: 200, redemptions: 1 }]);
    await end(budgeted);
  });

  it('a reward more than the discount left is not given, not even in part', async () => {
    const budgeted = await create(twoOff('Two off, 3.00 in all', { total: 3 }));
    const p = await m.profile({ balance: 10_000 });
    expect((await order(p.card, [['1003', 1]], 1099)).statusCode).toBe(200);
    // 1.00 left: the 2.00 off is not given, and the order is priced at 12.99.
    const res = await order(p.card, [['1003', 1]], 1299);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().positions[0].price).toBe(1299);
    expect(await budgetRows(budgeted)).toEqual([{ period: 'total', discount_minor: 200, redemptions: 1 }]);
    await end(budgeted);
  });

  it('an order refunded in whole gives back its discount and redemption; a partial refund does not', async () => {
    const budgeted = await create(twoOff('Two off, one redemption', { redemptions: 1 }));
    const p = await m.profile({ balance: 10_000 });
    const first = orderBody(m, p.card, [['1003', 1]], { totalGross: 1099, balance: { requestCharge: true } });
    expect((await m.order(first)).statusCode).toBe(200);
    expect((await order(p.card, [['1003', 1]], 1299)).statusCode).toBe(200);
    const part = await refund(first.basketId as string, { amount: 500 });
    expect(part.statusCode, part.body).toBe(200);
    expect(part.json().status).toBe('partially_refunded');
    expect(await budgetRows(budgeted)).toEqual([{ period: 'total', discount_minor: 200, redemptions: 1 }]);
    const rest = await refund(first.basketId as string);
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json().status).toBe('refunded');
    expect(await budgetRows(budgeted)).toEqual([{ period: 'total', discount_minor: 0, redemptions: 0 }]);
    expect((await orderBookings(budgeted))[0]?.given_back_at).not.toBeNull();
    // Refunding it in whole again gives nothing back twice.
    expect((await refund(first.basketId as string)).statusCode).toBe(200);
    expect(await budgetRows(budgeted)).toEqual([{ period: 'total', discount_minor: 0, redemptions: 0 }]);
    // The redemption is there again for the next order.
    expect((await order(p.card, [['1003', 1]], 1099)).statusCode).toBe(200);
    await expectLedgerSound(t);
    await end(budgeted);
  });

  it('orders at once against a budget of five redemptions: exactly five are given the reward, the others are refused naming the total without it', async () => {
    const budgeted = await create(twoOff('Two off, five redemptions', { redemptions: 5 }));
    const p = await m.profile({ balance: 0 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => m.order(orderBody(m, p.card, [['1003', 1]], { totalGross: 1099 }))),
    );
    const placed = answers.filter((a) => a.statusCode === 200);
    expect(placed.map((a) => a.json().positions[0].price)).toEqual([1099, 1099, 1099, 1099, 1099]);
    const refused = answers.filter((a) => a.statusCode !== 200);
    expect(refused).toHaveLength(15);
    for (const a of refused) {
      expect(a.statusCode, a.body).toBe(422);
      expect(a.json().error).toMatchObject({ code: 'total_mismatch', details: { expectedTotalGross: 1299 } });
    }
    expect(await budgetRows(budgeted)).toEqual([{ period: 'total', discount_minor: 1000, redemptions: 5 }]);
    expect(await orderBookings(budgeted)).toHaveLength(5);
    await end(budgeted);
  });

  it('a budget set on a campaign the orders took counts the orders from then on; removed, the orders are given the reward again', async () => {
    const body = twoOff('Two off, budget later');
    const id = await create(body);
    const p = await m.profile({ balance: 10_000 });
    expect((await order(p.card, [['1003', 1]], 1099)).statusCode).toBe(200);
    const set = await t.admin('PUT', `/merchants/${u}/campaigns/${id}`, { ...body, budget: { total: 3 } });
    expect(set.statusCode, set.body).toBe(200);
    // The order before the budget does not count: 3.00 left, one 2.00 reward fits.
    expect((await order(p.card, [['1003', 1]], 1099)).statusCode).toBe(200);
    expect((await order(p.card, [['1003', 1]], 1299)).statusCode).toBe(200);
    const removed = await t.admin('PUT', `/merchants/${u}/campaigns/${id}`, body);
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await order(p.card, [['1003', 1]], 1099)).statusCode).toBe(200);
    await end(id);
  });

  it('the dry run on the checkout channel gives the campaign while its budget has room and holds it back after, as the order is priced', async () => {
    const budgeted = await create(twoOff('Two off, one redemption, dry run', { redemptions: 1 }));
    const basket = {
      Timestamp: '2026-03-02T12:00:00+01:00',
      HasDiscounts: false,
      CurrencyISO: 'EUR',
      Positions: [{ PositionId: 1, ProductId: '1003', Unit: 0, Amount: 1, CurrentGrossPrice: 12.99 }],
    };
    const dry = () => t.admin('POST', `/merchants/${u}/dryRun`, { basket, channel: 'checkout' });
    const before = await dry();
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json().explanations).toEqual([
      expect.objectContaining({ campaignId: budgeted, applied: true, reasonCode: 'applied' }),
    ]);
    const p = await m.profile({ balance: 5_000 });
    expect((await order(p.card, [['1003', 1]], 1099)).statusCode).toBe(200);
    const after = await dry();
    expect(after.json().Rewards).toEqual([]);
    expect(after.json().explanations).toEqual([
      expect.objectContaining({
        campaignId: budgeted,
        applied: false,
        heldBackByBudget: true,
        reasonCode: 'held_back_no_redemptions',
      }),
    ]);
    // A draft with a budget applies on the checkout channel as at the tills.
    const draft = await t.admin('POST', `/merchants/${u}/dryRun`, {
      basket,
      channel: 'checkout',
      includeLiveCampaigns: false,
      campaigns: [twoOff('Draft with a budget', { redemptions: 5 })],
    });
    expect(draft.statusCode, draft.body).toBe(200);
    expect(draft.json().explanations).toEqual([
      expect.objectContaining({ campaignId: 'draft-1', applied: true }),
    ]);
    expect((await order(p.card, [['1003', 1]], 1299)).statusCode).toBe(200);
    await end(budgeted);
  });

  /**
   * A shop of its own with the campaigns given, its orders written at once: the app remembers a
   * shop's menu with its campaigns as they were, and an order priced from an older memory is rightly
   * left to the separate statements, which these tests are not about.
   */
  const shopWith = async (...campaigns: Record<string, unknown>[]) => {
    const shop = await setupCheckout(t);
    const su = encodeURIComponent(shop.serviceUserName);
    const ids: number[] = [];
    for (const body of campaigns) {
      const res = await t.admin('POST', `/merchants/${su}/campaigns`, body);
      expect(res.statusCode, res.body).toBe(201);
      ids.push((res.json() as { id: number }).id);
    }
    return { shop, ids, ...(await writtenAtOnce(t, shop)) };
  };

  it('an order given a campaign with a budget is written in one statement with what it books of the budget and the period', async () => {
    const { shop, ids, atOnce } = await shopWith(
      twoOff('Two off, 9.00 a day', { period: 'day', periodAmount: 9 }),
    );
    const budgeted = ids[0] as number;
    const p = await shop.profile();
    const res = await atOnce(p.card, [['1003', 2]], 2198);
    expect(res?.status, res?.body).toBe(200);
    const rows = await budgetRows(budgeted);
    const day = rows.find((r) => r.period !== 'total');
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.period === 'total')).toEqual({
      period: 'total',
      discount_minor: 400,
      redemptions: 1,
    });
    expect(day).toMatchObject({ discount_minor: 400, redemptions: 1 });
    const written = await t.database.db
      .selectFrom('checkout_orders')
      .select('id')
      .where('basket_id', '=', JSON.parse(res?.body ?? '{}').basketId)
      .executeTakeFirstOrThrow();
    const booking = await t.database.db
      .selectFrom('order_budget_bookings')
      .select(['order_id', 'period', 'discount_minor', 'redemptions'])
      .where('campaign_id', '=', budgeted)
      .execute();
    expect(booking).toEqual([
      { order_id: written.id, period: day?.period, discount_minor: 400, redemptions: 1 },
    ]);
  });

  it('orders of one batch book a budget in turn: those that fit what is left are booked together, the one past it is priced again without the reward', async () => {
    const { shop, ids, atOnce, release } = await shopWith(
      twoOff('Two off, two redemptions, one batch', { redemptions: 2 }),
    );
    const byRedemptions = ids[0] as number;
    const p = await shop.profile({ balance: 10_000 });
    const three = [1, 2, 3].map(() => atOnce(p.card, [['1003', 1]], 1099, true));
    await release(3);
    expect(placedAndLeft(await Promise.all(three))).toEqual({ placed: 2, left: 1, other: 0 });
    expect(await budgetRows(byRedemptions)).toEqual([
      { period: 'total', discount_minor: 400, redemptions: 2 },
    ]);
    expect(await orderBookings(byRedemptions)).toHaveLength(2);
    // Left to the separate statements, the third is priced under the lock without the reward.
    const past = await shop.order(orderBody(shop, p.card, [['1003', 1]], { totalGross: 1099 }));
    expect(past.statusCode).toBe(422);
    expect(past.json().error.details.expectedTotalGross).toBe(1299);

    // By discount: 5.00 in all, 2.00 a reward: two fit, the third finds 1.00 left.
    const other = await shopWith(twoOff('Two off, 5.00 in all, one batch', { total: 5 }));
    const q = await other.shop.profile({ balance: 10_000 });
    const more = [1, 2, 3].map(() => other.atOnce(q.card, [['1003', 1]], 1099, true));
    await other.release(3);
    expect(placedAndLeft(await Promise.all(more))).toEqual({ placed: 2, left: 1, other: 0 });
    expect(await budgetRows(other.ids[0] as number)).toEqual([
      { period: 'total', discount_minor: 400, redemptions: 2 },
    ]);
    await expectLedgerSound(t);
  });

  it('an order of a batch whose basketId an order before it took, priced on a redemption that order took, is refused for its total first, as the separate statements refuse it', async () => {
    const { shop, ids, atOnce, release } = await shopWith(
      twoOff('Two off, one redemption, one basketId', { redemptions: 1 }),
    );
    const p = await shop.profile();
    const basketId = randomUUID();
    const both = [1, 2].map(() => atOnce(p.card, [['1003', 1]], 1099, true, { basketId }));
    await release(2);
    // Not order_exists from the batch: the second is left to the separate statements, which price
    // it first (no redemption left) and refuse its total.
    expect(placedAndLeft(await Promise.all(both))).toEqual({ placed: 1, left: 1, other: 0 });
    const again = await shop.order(orderBody(shop, p.card, [['1003', 1]], { totalGross: 1099, basketId }));
    expect(again.statusCode, again.body).toBe(422);
    expect(again.json().error.code).toBe('total_mismatch');
    expect(await budgetRows(ids[0] as number)).toEqual([
      { period: 'total', discount_minor: 200, redemptions: 1 },
    ]);
  });

  it('an order priced before another took the last redemption, written after it, is left to the separate statements', async () => {
    const { shop, ids, atOnce, prepared, release } = await shopWith(
      twoOff('Two off, one redemption, taken meanwhile', { redemptions: 1 }),
    );
    const p = await shop.profile();
    const late = atOnce(p.card, [['1003', 1]], 1099, true);
    // Priced (with the redemption) before the other order takes it.
    await prepared(1);
    const other = await shop.order(orderBody(shop, p.card, [['1003', 1]], { totalGross: 1099 }));
    expect(other.statusCode, other.body).toBe(200);
    await release(1);
    expect(await late).toBeNull();
    expect(await budgetRows(ids[0] as number)).toEqual([
      { period: 'total', discount_minor: 200, redemptions: 1 },
    ]);
  });

  it('an order whose pricing left out one campaign with a budget and gave another is left to the separate statements', async () => {
    const coffee = {
      name: 'Coffee 0.50 off, budget',
      type: 'product',
      discount: { amount: 0.5 },
      products: [{ plu: '1001' }],
      budget: { redemptions: 10 },
    };
    const { shop, ids, atOnce } = await shopWith(
      twoOff('Two off, one redemption, spent', { redemptions: 1 }),
      coffee,
    );
    const [spent, coffeeId] = ids as [number, number];
    const p = await shop.profile();
    expect((await shop.order(orderBody(shop, p.card, [['1003', 1]], { totalGross: 1099 }))).statusCode).toBe(
      200,
    );
    const lines: [string, number][] = [
      ['1003', 1],
      ['1001', 1],
    ];
    expect(await atOnce(p.card, lines, 1299 + 300)).toBeNull();
    const res = await shop.order(orderBody(shop, p.card, lines, { totalGross: 1299 + 300 }));
    expect(res.statusCode, res.body).toBe(200);
    expect(await budgetRows(coffeeId)).toEqual([{ period: 'total', discount_minor: 50, redemptions: 1 }]);
    expect(await budgetRows(spent)).toEqual([{ period: 'total', discount_minor: 200, redemptions: 1 }]);
  });

  it("orders of two shops in one batch each book their own shop's budget", async () => {
    const here = await shopWith(twoOff('Two off, this shop', { redemptions: 1 }));
    const there = await shopWith(twoOff('Two off, other shop', { redemptions: 1 }));
    const p = await here.shop.profile();
    const q = await there.shop.profile();
    const answers = [
      here.atOnce(p.card, [['1003', 1]], 1099, true),
      there.atOnce(q.card, [['1003', 1]], 1099, true),
      here.atOnce(p.card, [['1003', 1]], 1099, true),
    ];
    for (let waited = 0; here.held.length + there.held.length < 3; waited++) {
      if (waited > 500) throw new Error('the orders were not prepared');
      await new Promise((r) => setTimeout(r, 10));
    }
    const orders = t.app.services.checkout.orders;
    for (const h of [...here.held.splice(0), ...there.held.splice(0)]) h.settle(orders.place(h.write));
    const [mineFirst, theirsOnly, mineSecond] = await Promise.all(answers);
    expect(theirsOnly?.status, theirsOnly?.body).toBe(200);
    expect(placedAndLeft([mineFirst ?? null, mineSecond ?? null])).toEqual({ placed: 1, left: 1, other: 0 });
    expect(await budgetRows(here.ids[0] as number)).toEqual([
      { period: 'total', discount_minor: 200, redemptions: 1 },
    ]);
    expect(await budgetRows(there.ids[0] as number)).toEqual([
      { period: 'total', discount_minor: 200, redemptions: 1 },
    ]);
  });
});
