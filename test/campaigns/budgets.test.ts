import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import { type Terminal, type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';

interface Reward {
  GrossRewardValue: number;
  CouponId: number;
}

const basket = {
  Timestamp: '2026-03-02T12:00:00+01:00',
  HasDiscounts: false,
  CurrencyISO: 'EUR',
  Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 5 }],
};

type Budget = {
  budget_total_minor?: number | null;
  budget_redemptions?: number | null;
  budget_period?: 'day' | 'week' | 'month' | null;
  budget_period_minor?: number | null;
};

describe.each(databases)('budgets of a campaign on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let u: string;
  let n = 0;
  const basketId = () => `budget-basket-${(n += 1)}`;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    u = encodeURIComponent(term.serviceUserName);
  });
  afterAll(() => t?.close());

  /** A campaign of 2.00 off the bill with the budgets given. */
  const campaign = async (name: string, budget: Budget) => {
    const res = await t.admin('POST', `/merchants/${u}/campaigns`, {
      name,
      type: 'bill',
      discount: { amount: 2 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id } = res.json() as { id: number };
    if (Object.keys(budget).length > 0) {
      await t.database.db.updateTable('campaigns').set(budget).where('id', '=', id).execute();
    }
    return id;
  };
  const end = (id: number) => t.admin('DELETE', `/merchants/${u}/campaigns/${id}`);
  /** Uploads a basket and grants it: the campaign's rewards the grant booked. */
  const buy = async (campaignId: number) => {
    const id = basketId();
    const up = await term.pos('POST', `/baskets/${id}`, { body: basket });
    expect(up.statusCode, up.body).toBe(200);
    const res = await term.pos('POST', `/baskets/${id}/grant`, { sign: id });
    expect(res.statusCode, res.body).toBe(200);
    const rewards = (res.json() as { Rewards: Reward[] }).Rewards.filter((r) => r.CouponId === campaignId);
    return { id, rewards };
  };
  const used = (campaignId: number) =>
    t.database.db
      .selectFrom('campaign_budget_usage')
      .select(['period', 'discount_minor', 'redemptions'])
      .where('campaign_id', '=', campaignId)
      .orderBy('period')
      .execute();

  it('a campaign without budgets rewards every grant, as before', async () => {
    const id = await campaign('No budget', {});
    for (let i = 0; i < 3; i += 1) expect((await buy(id)).rewards).toHaveLength(1);
    expect(await used(id)).toEqual([]);
    await end(id);
  });

  it('the total number of redemptions: a grant past it is granted without the campaign reward', async () => {
    const id = await campaign('Two redemptions', { budget_redemptions: 2 });
    expect((await buy(id)).rewards).toHaveLength(1);
    expect((await buy(id)).rewards).toHaveLength(1);
    expect((await buy(id)).rewards).toEqual([]);
    expect(await used(id)).toEqual([{ period: 'total', discount_minor: 400, redemptions: 2 }]);
    await end(id);
  });

  it('a total discount budget: a reward that no longer fits whole is not granted', async () => {
    const id = await campaign('Three euros', { budget_total_minor: 300 });
    expect((await buy(id)).rewards).toEqual([expect.objectContaining({ GrossRewardValue: 2 })]);
    expect((await buy(id)).rewards).toEqual([]);
    expect(await used(id)).toEqual([{ period: 'total', discount_minor: 200, redemptions: 1 }]);
    await end(id);
  });

  it('a per-day budget exhausted ends the rewards until the next day in the merchant time zone', async () => {
    const id = await campaign('Two euros a day', { budget_period: 'day', budget_period_minor: 200 });
    expect((await buy(id)).rewards).toHaveLength(1);
    expect((await buy(id)).rewards).toEqual([]);
    t.clock.advance(24 * 3600 * 1000);
    expect((await buy(id)).rewards).toHaveLength(1);
    const rows = await used(id);
    expect(rows.filter((r) => r.period === 'total')).toEqual([
      { period: 'total', discount_minor: 400, redemptions: 2 },
    ]);
    expect(rows.filter((r) => r.period !== 'total').map((r) => r.discount_minor)).toEqual([200, 200]);
    await end(id);
  });

  it('a per-week budget starts again on Monday and a per-month budget on the first, in the merchant time zone (Berlin), not in UTC', async () => {
    const cases = [
      // Sunday 3 January 2027, 23:30 in Berlin (22:30 UTC), then 00:30 on Monday there (Sunday in UTC).
      { period: 'week' as const, at: '2027-01-03T22:30:00Z', periods: ['2026-12-28', '2027-01-04'] },
      // 31 January 2027, 23:30 in Berlin, then 00:30 on 1 February there (still January in UTC).
      { period: 'month' as const, at: '2027-01-31T22:30:00Z', periods: ['2027-01-01', '2027-02-01'] },
    ];
    for (const { period, at, periods } of cases) {
      t.clock.ms = Date.parse(at);
      const id = await campaign(`Two euros a ${period}`, { budget_period: period, budget_period_minor: 200 });
      expect((await buy(id)).rewards).toHaveLength(1);
      expect((await buy(id)).rewards).toEqual([]);
      t.clock.advance(3600 * 1000);
      expect((await buy(id)).rewards).toHaveLength(1);
      expect((await used(id)).map((r) => [r.period, r.discount_minor])).toEqual([
        [periods[0], 200],
        [periods[1], 200],
        ['total', 400],
      ]);
      await end(id);
    }
  });

  it('a return gives back the redemption and the discount to the budget', async () => {
    const id = await campaign('One redemption', { budget_redemptions: 1 });
    const first = await buy(id);
    expect(first.rewards).toHaveLength(1);
    expect((await buy(id)).rewards).toEqual([]);
    const ret = await term.pos('POST', `/baskets/${first.id}/return`, {
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 2 }] },
      sign: `${first.id}R1`,
    });
    expect(ret.statusCode, ret.body).toBe(200);
    expect(await used(id)).toEqual([{ period: 'total', discount_minor: 0, redemptions: 0 }]);
    expect((await buy(id)).rewards).toHaveLength(1);
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
    await end(id);
  });
});
