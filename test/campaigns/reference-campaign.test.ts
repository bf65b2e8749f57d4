import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Static } from 'typebox';
import type { DryRunResponseSchema } from '../../src/wire/documents/dry-run.schemas.js';
import { type Terminal, type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';

/**
 * A campaign with everything a merchant combines (docs/decisions.md, "Stacking", "Budgets",
 * "Status tiers"): it stacks on the other product reward of its position, spends a budget and is
 * for one status tier; the dry run with a chosen tier shows each of them. Its traffic is the API
 * reference's example of a campaign body and of a dry run's request and answer
 * (scripts/api-examples.ts).
 */

/** The dry run's answer, as the API document declares it. */
type Answer = Static<typeof DryRunResponseSchema>;

describe.each(databases)('a campaign stacking, with a budget and for a tier on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let u: string;
  let schemeId: number;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    u = encodeURIComponent(term.serviceUserName);
    const s = await t.admin('POST', `/merchants/${u}/loyaltySchemes`, {
      name: 'Coffee card',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
      tiers: [
        { name: 'Silver', threshold: 100, multiplier: 1.5 },
        { name: 'Gold', threshold: 300, multiplier: 2 },
      ],
      tierBasis: { measure: 'points', period: { rollingDays: 90 } },
    });
    expect(s.statusCode, s.body).toBe(201);
    schemeId = (s.json() as { id: number }).id;
  });
  afterAll(() => t?.close());

  it('a Gold-only campaign stacking on the cappuccino reward within a budget: stored as sent, and in the dry run applied for Gold, held back by an exhausted budget, left out for Silver', async () => {
    const cappuccino = await t.admin('POST', `/merchants/${u}/campaigns`, {
      name: 'Cappuccino 0.50 off',
      type: 'product',
      discount: { amount: 0.5 },
      products: [{ plu: '1001' }],
    });
    expect(cappuccino.statusCode, cappuccino.body).toBe(201);
    const body = {
      name: 'Gold members: 10 % more on coffee',
      type: 'product',
      discount: { percent: 10 },
      products: [{ plu: '1001' }, { group: 'COFFEE' }],
      validFrom: '2026-03-01T00:00:00+01:00',
      validTo: '2026-06-01T00:00:00+02:00',
      schedule: [{ days: [1, 2, 3, 4, 5], from: '07:00', to: '11:00' }],
      requiresConsumer: true,
      stacking: { mode: 'stackable' },
      budget: { total: 250, redemptions: 1000 },
      tiers: { schemeId, names: ['Gold'] },
    };
    const created = await t.admin('POST', `/merchants/${u}/campaigns`, body);
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: number }).id;
    const read = await t.admin('GET', `/merchants/${u}/campaigns/${id}`);
    expect(read.json()).toMatchObject({
      stacking: { mode: 'stackable' },
      tiers: { schemeId, names: ['Gold'] },
      budgetRemaining: { total: 250, redemptions: 1000 },
    });

    const dryRun = async (tier: string) => {
      const res = await t.admin('POST', `/merchants/${u}/dryRun`, {
        basket: {
          Timestamp: '2026-03-02T09:15:00+01:00',
          HasDiscounts: false,
          CurrencyISO: 'EUR',
          Positions: [
            { PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 3.2 },
            { PositionId: 2, ProductId: '2001', Unit: 0, Amount: 1, CurrentGrossPrice: 2.8 },
          ],
        },
        includeLiveCampaigns: true,
        trackingUnitId: term.trackingUnitId,
        consumer: { points: { [schemeId]: 120 }, tiers: { [schemeId]: tier } },
        campaigns: [
          {
            name: 'Silver: croissant free',
            type: 'product',
            discount: { percent: 100 },
            products: [{ plu: '2001' }],
            tiers: { schemeId, names: ['Silver'] },
          },
          { name: 'Two off the bill', type: 'bill', discount: { amount: 2 }, budget: { total: 1.5 } },
        ],
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Answer;
    };
    const gold = await dryRun('Gold');
    const explained = (a: Answer, campaignId: number | string) =>
      a.explanations.find((e) => e.campaignId === campaignId);
    // 2 × 3.20 = 6.40: 1.00 off (0.50 a unit), then 10 % of the 5.40 left on top.
    expect(
      gold.Rewards.filter((r) => r.RewardTriggeringPositionId === 1).map((r) => r.GrossRewardValue),
    ).toEqual([1, 0.54]);
    expect(explained(gold, id)).toMatchObject({ applied: true, stacking: 'stackable' });
    expect(explained(gold, 'draft-1')).toMatchObject({ applied: false, reason: 'only for Silver' });
    expect(explained(gold, 'draft-2')).toMatchObject({ applied: false, heldBackByBudget: true });
    // Gold earns twice the points: 9.20 - 1.54 = 7.66, 7 points, 14.
    expect(gold.LoyaltyInfo.find((l) => l.LoyaltyId === schemeId)?.Details[0]?.NewPoints).toBe(134);

    const silver = await dryRun('Silver');
    expect(explained(silver, id)).toMatchObject({ applied: false, reason: 'only for Gold' });
    expect(explained(silver, 'draft-1')).toMatchObject({ applied: true });
  });
});
