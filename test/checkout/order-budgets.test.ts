import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, expectLedgerSound, orderBody, setupCheckout } from './checkout-support.js';

/**
 * A campaign's budget is kept by the tills' grants only (docs/decisions.md, "A campaign with a
 * budget and online orders"): an online order is priced without a campaign that has one, and books
 * nothing against it, while a till's basket still gets it.
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

  it('an online order is priced without a campaign that has a budget, and books nothing against it', async () => {
    const budgeted = await create(twoOff('Two off, two baskets', { redemptions: 2 }));
    const tenOff = await create({
      name: 'Ten off 1001',
      type: 'product',
      discount: { percent: 10 },
      products: [{ plu: '1001' }],
    });
    const p = await m.profile({ balance: 10_000 });
    // Three orders, more than the budget's two redemptions: each pays 12.99 for 1003, 3.15 for 1001.
    for (let i = 0; i < 3; i += 1) {
      const res = await order(
        p.card,
        [
          ['1003', 1],
          ['1001', 1],
        ],
        1299 + 315,
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().positions.map((x: { price: number }) => x.price)).toEqual([1299, 315]);
    }
    // The total the campaign would have given is refused: the order was not priced with it.
    const withIt = await order(p.card, [['1003', 1]], 1099);
    expect(withIt.statusCode).toBe(422);
    expect(withIt.json().error).toMatchObject({
      code: 'total_mismatch',
      details: { expectedTotalGross: 1299 },
    });
    expect(await budgetRows(budgeted)).toEqual([]);

    // A till's basket still gets it, and its grant counts against the budget.
    const body = {
      Timestamp: '2026-03-02T12:00:00+01:00',
      HasDiscounts: false,
      CurrencyISO: 'EUR',
      Positions: [{ PositionId: 1, ProductId: '1003', Unit: 0, Amount: 1, CurrentGrossPrice: 12.99 }],
    };
    const up = await m.term.pos('POST', '/baskets/budget-till-1', { body });
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().Rewards).toEqual([expect.objectContaining({ CouponId: budgeted, GrossRewardValue: 2 })]);
    const grant = await m.term.pos('POST', '/baskets/budget-till-1/grant', { sign: 'budget-till-1' });
    expect(grant.statusCode, grant.body).toBe(200);
    expect(await budgetRows(budgeted)).toEqual([{ period: 'total', discount_minor: 200, redemptions: 1 }]);
    await expectLedgerSound(t);
    await end(budgeted);
    await end(tenOff);
  });

  it('a budget set on a campaign the orders took: the next order is priced without it, and with it again once the budget is removed', async () => {
    const body = twoOff('Two off, budget later');
    const id = await create(body);
    const p = await m.profile({ balance: 10_000 });
    expect((await order(p.card, [['1003', 1]], 1099)).statusCode).toBe(200);
    const set = await t.admin('PUT', `/merchants/${u}/campaigns/${id}`, { ...body, budget: { total: 100 } });
    expect(set.statusCode, set.body).toBe(200);
    const after = await order(p.card, [['1003', 1]], 1299);
    expect(after.statusCode, after.body).toBe(200);
    const removed = await t.admin('PUT', `/merchants/${u}/campaigns/${id}`, body);
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await order(p.card, [['1003', 1]], 1099)).statusCode).toBe(200);
    await end(id);
  });

  it('the dry run on the checkout channel holds the campaign back (held_back_tills_only) and prices as the order', async () => {
    const budgeted = await create(twoOff('Two off, budget', { total: 500 }));
    const basket = {
      Timestamp: '2026-03-02T12:00:00+01:00',
      HasDiscounts: false,
      CurrencyISO: 'EUR',
      Positions: [{ PositionId: 1, ProductId: '1003', Unit: 0, Amount: 1, CurrentGrossPrice: 12.99 }],
    };
    const dry = (channel: 'pos' | 'checkout') =>
      t.admin('POST', `/merchants/${u}/dryRun`, { basket, channel });
    const checkout = await dry('checkout');
    expect(checkout.statusCode, checkout.body).toBe(200);
    expect(checkout.json().Rewards).toEqual([]);
    expect(checkout.json().explanations).toEqual([
      expect.objectContaining({
        campaignId: budgeted,
        applied: false,
        heldBackByBudget: true,
        reasonCode: 'held_back_tills_only',
        reason: 'held back: a campaign with a budget applies at the tills only',
      }),
    ]);
    const pos = await dry('pos');
    expect(pos.json().explanations).toEqual([
      expect.objectContaining({ campaignId: budgeted, applied: true, reasonCode: 'applied' }),
    ]);
    // A draft with a budget is held back on the checkout channel as well.
    const draft = await t.admin('POST', `/merchants/${u}/dryRun`, {
      basket,
      channel: 'checkout',
      includeLiveCampaigns: false,
      campaigns: [twoOff('Draft with a budget', { redemptions: 5 })],
    });
    expect(draft.statusCode, draft.body).toBe(200);
    expect(draft.json().explanations).toEqual([
      expect.objectContaining({ campaignId: 'draft-1', reasonCode: 'held_back_tills_only' }),
    ]);
    // The order is priced as the checkout dry run said: no discount.
    const p = await m.profile({ balance: 5_000 });
    expect((await order(p.card, [['1003', 1]], 1299)).statusCode).toBe(200);
    await end(budgeted);
  });
});
