import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Terminal, type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';

interface Reward {
  GrossRewardValue: number;
  CouponId: number;
  PositionId: number;
}

const basket = {
  Timestamp: '2026-03-02T12:00:00+01:00',
  HasDiscounts: false,
  CurrencyISO: 'EUR',
  Positions: [{ PositionId: 1, ProductId: '7001', Unit: 0, Amount: 2, CurrentGrossPrice: 5 }],
};

/** One off each unit, without a stacking setting; 10 % stacked on top of it. */
const oneOff = { name: 'One off', type: 'product', discount: { amount: 1 }, products: [{ plu: '7001' }] };
const tenOnTop = {
  name: 'Ten percent on top',
  type: 'product',
  discount: { percent: 10 },
  products: [{ plu: '7001' }],
  stacking: { mode: 'stackable' },
};

/** Stacking and budgets set through the operator API (docs/decisions.md, "Budgets", "Stacking"). */
describe.each(databases)('stacking and budgets in the operator API on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let u: string;
  let n = 0;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    u = encodeURIComponent(term.serviceUserName);
  });
  afterAll(() => t?.close());

  const create = async (body: Record<string, unknown>) => {
    const res = await t.admin('POST', `/merchants/${u}/campaigns`, body);
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { id: number }).id;
  };
  const read = async (id: number) => {
    const res = await t.admin('GET', `/merchants/${u}/campaigns/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Record<string, unknown>;
  };
  const end = (id: number) => t.admin('DELETE', `/merchants/${u}/campaigns/${id}`);
  const buy = async () => {
    const id = `settings-basket-${(n += 1)}`;
    const up = await term.pos('POST', `/baskets/${id}`, { body: basket });
    expect(up.statusCode, up.body).toBe(200);
    const res = await term.pos('POST', `/baskets/${id}/grant`, { sign: id });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { Rewards: Reward[] }).Rewards;
  };
  const bill = { name: 'Two off', type: 'bill', discount: { amount: 2 } };

  it('a stackable campaign set through the API adds its reward on top of another on the same line', async () => {
    const plain = await create(oneOff);
    const body = tenOnTop;
    const stacked = await create(body);
    expect(await read(stacked)).toMatchObject({ stacking: { mode: 'stackable' }, budgetRemaining: null });
    const rewards = await buy();
    // 2 x 1.00 off, then 10 % of the 8.00 left of the line.
    expect(rewards.filter((r) => r.CouponId === plain).map((r) => r.GrossRewardValue)).toEqual([2]);
    expect(rewards.filter((r) => r.CouponId === stacked).map((r) => r.GrossRewardValue)).toEqual([0.8]);

    // A new version without stacking: one reward per unit again, and version 2 remembers it.
    const put = await t.admin('PUT', `/merchants/${u}/campaigns/${stacked}`, { ...body, stacking: null });
    expect(put.statusCode, put.body).toBe(200);
    expect((await buy()).filter((r) => r.CouponId === stacked)).toEqual([]);
    const v1 = await t.admin('GET', `/merchants/${u}/campaigns/${stacked}/versions/1`);
    expect(v1.json()).toMatchObject({ version: 1, stacking: { mode: 'stackable' } });
    await end(plain);
    await end(stacked);
  });

  it('a return reverses stacked rewards in proportion: each of the two units back refunds half of both rewards', async () => {
    const plain = await create(oneOff);
    const stacked = await create(tenOnTop);
    const id = `settings-basket-${(n += 1)}`;
    expect((await term.pos('POST', `/baskets/${id}`, { body: basket })).statusCode).toBe(200);
    const granted = await term.pos('POST', `/baskets/${id}/grant`, { sign: id });
    expect(granted.statusCode, granted.body).toBe(200);
    // 2 x 1.00 off, then 10 % of the 8.00 left: 2.80 on the line.
    const rewards = (granted.json() as { Rewards: Reward[] }).Rewards;
    expect(rewards.map((r) => [r.CouponId, r.GrossRewardValue])).toEqual([
      [plain, 2],
      [stacked, 0.8],
    ]);
    const giveBack = async (returnId: string) => {
      const r = await term.pos('POST', `/baskets/${id}/return`, {
        body: { ReturnId: returnId, Positions: [{ PositionId: 1, Amount: 1 }] },
        sign: `${id}${returnId}`,
      });
      expect(r.statusCode, r.body).toBe(200);
      return (r.json() as { RefundedRewardValue: number }).RefundedRewardValue;
    };
    expect(await giveBack('R1')).toBe(1.4);
    expect(await giveBack('R2')).toBe(1.4);
    await end(plain);
    await end(stacked);
  });

  it('a group stacks only within its group', async () => {
    const a = await create({
      name: 'Group A one off',
      type: 'product',
      discount: { amount: 1 },
      products: [{ plu: '7001' }],
      stacking: { mode: 'group', group: 'spring' },
    });
    const b = await create({
      name: 'Group A half off',
      type: 'product',
      discount: { percent: 50 },
      products: [{ plu: '7001' }],
      stacking: { mode: 'group', group: ' spring ' },
    });
    const c = await create({
      name: 'Other group',
      type: 'product',
      discount: { percent: 10 },
      products: [{ plu: '7001' }],
      stacking: { mode: 'group', group: 'summer' },
    });
    const rewards = await buy();
    // Percent before amount: 50 % of 10.00, then 2 x 1.00; the other group finds the line taken.
    expect(rewards.filter((r) => r.CouponId === b).map((r) => r.GrossRewardValue)).toEqual([5]);
    expect(rewards.filter((r) => r.CouponId === a).map((r) => r.GrossRewardValue)).toEqual([2]);
    expect(rewards.filter((r) => r.CouponId === c)).toEqual([]);
    for (const id of [a, b, c]) await end(id);
  });

  it('budgets set through the API are enforced at the grant and GET shows what is left', async () => {
    const id = await create({ ...bill, budget: { total: 5, redemptions: 2 } });
    expect(await read(id)).toMatchObject({
      budget: { total: 5, redemptions: 2 },
      budgetRemaining: { total: 5, redemptions: 2, period: null },
    });
    expect((await buy()).filter((r) => r.CouponId === id)).toHaveLength(1);
    expect((await read(id)).budgetRemaining).toEqual({ total: 3, redemptions: 1, period: null });
    expect((await buy()).filter((r) => r.CouponId === id)).toHaveLength(1);
    expect((await read(id)).budgetRemaining).toEqual({ total: 1, redemptions: 0, period: null });
    expect((await buy()).filter((r) => r.CouponId === id)).toEqual([]);

    // Raised by a new version: the next grant may use it; the list shows it too.
    const put = await t.admin('PUT', `/merchants/${u}/campaigns/${id}`, { ...bill, budget: { total: 10 } });
    expect(put.statusCode, put.body).toBe(200);
    expect((await buy()).filter((r) => r.CouponId === id)).toHaveLength(1);
    const list = await t.admin('GET', `/merchants/${u}/campaigns?status=active`);
    const listed = (list.json() as { data: { id: number; budgetRemaining: unknown }[] }).data;
    expect(listed.find((c) => c.id === id)?.budgetRemaining).toEqual({
      total: 4,
      redemptions: null,
      period: null,
    });
    await end(id);
  });

  it('a per-day budget: GET shows the current day and what is left of it', async () => {
    const id = await create({ ...bill, budget: { period: 'day', periodAmount: 3 } });
    expect((await buy()).filter((r) => r.CouponId === id)).toHaveLength(1);
    const left = (await read(id)).budgetRemaining as { period: { start: string; amount: number } };
    expect(left).toMatchObject({ total: null, redemptions: null, period: { amount: 1 } });
    expect(left.period.start).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await buy()).filter((r) => r.CouponId === id)).toEqual([]);
    await end(id);
  });

  it('budgets changed while grants run: every grant and every change answers', async () => {
    const id = await create({ ...bill, budget: { redemptions: 100 } });
    const ids = Array.from({ length: 30 }, () => `settings-race-${(n += 1)}`);
    for (const basketId of ids) {
      const up = await term.pos('POST', `/baskets/${basketId}`, { body: basket });
      expect(up.statusCode, up.body).toBe(200);
    }
    const budgets = [
      { redemptions: 5 },
      null,
      { redemptions: 100, total: 7 },
      { redemptions: 3 },
      null,
      { redemptions: 20 },
    ];
    const [grants, puts] = await Promise.all([
      Promise.all(ids.map((basketId) => term.pos('POST', `/baskets/${basketId}/grant`, { sign: basketId }))),
      Promise.all(
        budgets.map((budget) => t.admin('PUT', `/merchants/${u}/campaigns/${id}`, { ...bill, budget })),
      ),
    ]);
    for (const g of grants) expect(g.statusCode, g.body).toBe(200);
    for (const p of puts) expect(p.statusCode, p.body).toBe(200);
    await end(id);
  });

  it.each([
    [{ ...bill, budget: { total: -1 } }, 'budget.total'],
    [{ ...bill, budget: { total: 0.001 } }, 'budget.total'],
    [{ ...bill, budget: { redemptions: 0 } }, 'budget.redemptions'],
    [{ ...bill, budget: { period: 'week' } }, 'budget.periodAmount'],
    [{ ...bill, budget: { periodAmount: 5 } }, 'budget.period'],
    [{ ...bill, budget: { period: 'year', periodAmount: 5 } }, '/budget/period'],
    [{ ...bill, stacking: { mode: 'stackable' } }, 'stacking'],
    [
      { name: 'P', type: 'product', discount: { amount: 1 }, products: [], stacking: { mode: 'group' } },
      'stacking.group',
    ],
    [
      {
        name: 'P',
        type: 'product',
        discount: { amount: 1 },
        products: [],
        stacking: { mode: 'group', group: '  ' },
      },
      'stacking.group',
    ],
    [
      {
        name: 'P',
        type: 'product',
        discount: { amount: 1 },
        products: [],
        stacking: { mode: 'exclusive', group: 'x' },
      },
      'stacking.group',
    ],
    [
      { name: 'P', type: 'product', discount: { amount: 1 }, products: [], stacking: { mode: 'all' } },
      '/stacking/mode',
    ],
  ])('refuses %j naming %s, and stores nothing', async (body, field) => {
    const before = await t.database.db
      .selectFrom('campaigns')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    const res = await t.admin('POST', `/merchants/${u}/campaigns`, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(JSON.stringify(res.json())).toContain(field);
    const after = await t.database.db
      .selectFrom('campaigns')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    expect(Number(after?.n)).toBe(Number(before?.n));
  });
});
