import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, expectLedgerSound, orderBody, setupCheckout } from './checkout-support.js';

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
});
