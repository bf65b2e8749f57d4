import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Static } from 'typebox';
import type { ExplanationSchema } from '../../src/wire/documents/dry-run.schemas.js';
import { type Terminal, type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';

interface Reward {
  GrossRewardValue: number;
  CouponId: number;
  RewardTriggeringPositionId: number;
}
/** The dry run's explanations, as the API document declares them. */
type Explanation = Static<typeof ExplanationSchema>;

const basket = {
  Timestamp: '2026-03-02T12:00:00+01:00',
  HasDiscounts: false,
  CurrencyISO: 'EUR',
  Positions: [{ PositionId: 1, ProductId: '8001', Unit: 0, Amount: 2, CurrentGrossPrice: 5 }],
};
const bill = { name: 'Two off', type: 'bill', discount: { amount: 2 } };

/**
 * The upload and the dry run say what budgets hold back and how rewards stack (docs/decisions.md,
 * "Budgets at the upload and in the dry run").
 */
describe.each(databases)('budgets and stacking at the upload and in the dry run on %s', (kind) => {
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
  const end = (id: number) => t.admin('DELETE', `/merchants/${u}/campaigns/${id}`);
  const upload = async () => {
    const id = `preview-basket-${(n += 1)}`;
    const up = await term.pos('POST', `/baskets/${id}`, { body: basket });
    expect(up.statusCode, up.body).toBe(200);
    return { id, rewards: (up.json() as { Rewards: Reward[] }).Rewards };
  };
  const grant = async (id: string) => {
    const res = await term.pos('POST', `/baskets/${id}/grant`, { sign: id });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { Rewards: Reward[] }).Rewards;
  };
  const dryRun = async (body: Record<string, unknown>) => {
    const res = await t.admin('POST', `/merchants/${u}/dryRun`, { basket, ...body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { Rewards: Reward[]; explanations: Explanation[] };
  };

  it('the upload leaves out a reward its budget no longer covers, as the grant will', async () => {
    const id = await create({ ...bill, budget: { total: 3 } });
    const first = await upload();
    expect(first.rewards.filter((r) => r.CouponId === id)).toHaveLength(1);
    expect((await grant(first.id)).filter((r) => r.CouponId === id)).toHaveLength(1);
    // 1.00 left of the budget: the 2.00 reward does not fit whole, so the till is not shown it.
    const second = await upload();
    expect(second.rewards.filter((r) => r.CouponId === id)).toEqual([]);
    expect((await grant(second.id)).filter((r) => r.CouponId === id)).toEqual([]);
    await end(id);
  });

  it('an upload shown the reward while budget was left is not granted it once another grant took the rest', async () => {
    const id = await create({ ...bill, budget: { redemptions: 1 } });
    const a = await upload();
    const b = await upload();
    expect(a.rewards.filter((r) => r.CouponId === id)).toHaveLength(1);
    expect(b.rewards.filter((r) => r.CouponId === id)).toHaveLength(1);
    expect((await grant(a.id)).filter((r) => r.CouponId === id)).toHaveLength(1);
    expect((await grant(b.id)).filter((r) => r.CouponId === id)).toEqual([]);
    await end(id);
  });

  it('the dry run says which live campaign its budget holds back and why', async () => {
    const id = await create({ ...bill, budget: { redemptions: 1 } });
    const first = await upload();
    await grant(first.id);
    const result = await dryRun({});
    expect(result.Rewards.filter((r) => r.CouponId === id)).toEqual([]);
    expect(result.explanations.find((e) => e.campaignId === id)).toMatchObject({
      applied: false,
      heldBackByBudget: true,
      reason: 'held back by its budget: no redemptions left',
      reasonCode: 'held_back_no_redemptions',
    });
    // The campaign form's draft of it (replacing it) starts from what its grants used.
    const draft = await dryRun({
      campaigns: [{ ...bill, budget: { redemptions: 2 } }],
      replaces: { campaigns: [id] },
    });
    expect(draft.explanations.find((e) => e.campaignId === 'draft-1')).toMatchObject({ applied: true });
    const tight = await dryRun({
      campaigns: [{ ...bill, budget: { redemptions: 1 } }],
      replaces: { campaigns: [id] },
    });
    expect(tight.explanations.find((e) => e.campaignId === 'draft-1')).toMatchObject({
      heldBackByBudget: true,
    });
    await end(id);
  });

  it('the dry run holds back a draft whose reward is more than its budget, and names the amounts', async () => {
    const result = await dryRun({
      campaigns: [{ ...bill, budget: { total: 1.5 } }],
      includeLiveCampaigns: false,
    });
    expect(result.Rewards).toEqual([]);
    expect(result.explanations).toEqual([
      expect.objectContaining({
        campaignId: 'draft-1',
        applied: false,
        heldBackByBudget: true,
        reason: 'held back by its budget: its reward 2.00 is more than the 1.50 left',
        reasonCode: 'held_back_budget',
        budget: { reward: 2, left: 1.5 },
      }),
    ]);
  });

  it('the dry run shows stacked rewards on one position and how each campaign stacks', async () => {
    const result = await dryRun({
      includeLiveCampaigns: false,
      campaigns: [
        { name: 'One off', type: 'product', discount: { amount: 1 }, products: [{ plu: '8001' }] },
        {
          name: 'Ten percent on top',
          type: 'product',
          discount: { percent: 10 },
          products: [{ plu: '8001' }],
          stacking: { mode: 'stackable' },
        },
      ],
    });
    expect(result.Rewards.map((r) => [r.CouponId, r.RewardTriggeringPositionId, r.GrossRewardValue])).toEqual(
      [
        [-1, 1, 2],
        [-2, 1, 0.8],
      ],
    );
    expect(result.explanations.find((e) => e.campaignId === 'draft-2')).toMatchObject({
      applied: true,
      stacking: 'stackable',
    });
    expect(result.explanations.find((e) => e.campaignId === 'draft-1')?.stacking).toBeUndefined();
  });
});
