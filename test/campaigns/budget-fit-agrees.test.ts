import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetShortfall } from '../../src/campaigns/campaign-budgets.js';
import type { EngineResult } from '../../src/engine/types.js';
import { type TestApp, databases, startApp } from '../support/harness.js';

/**
 * A reward fits a campaign's budgets whole or not at all (docs/decisions.md, "Budgets"): pricing
 * leaves a campaign out by `budgetShortfall`, and a batch of orders checks its bookings under the
 * budget's lock by `budget_booking_fits`. Both say the same of every reward and what is left.
 */
describe.each(databases)(
  'whether a reward fits what is left of a budget, priced and booked, on %s',
  (kind) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp(kind);
    });
    afterAll(() => t?.close());

    const left = fc.record({
      discountLeft: fc.option(fc.integer({ min: -500, max: 5_000 }), { nil: null }),
      redemptionsLeft: fc.option(fc.integer({ min: -2, max: 3 }), { nil: null }),
      rewardMinor: fc.integer({ min: 0, max: 5_000 }),
    });

    it('the booking fits exactly when pricing finds no shortfall, for every reward and what is left', async () => {
      const cases = [
        ...fc.sample(left, { numRuns: 2_000, seed: 17 }),
        // The edges: a reward of exactly what is left, nothing left, one redemption left.
        { discountLeft: 200, redemptionsLeft: 1, rewardMinor: 200 },
        { discountLeft: 199, redemptionsLeft: null, rewardMinor: 200 },
        { discountLeft: 0, redemptionsLeft: null, rewardMinor: 0 },
        { discountLeft: null, redemptionsLeft: 0, rewardMinor: 1 },
      ];
      const { rows } = await sql<{ fits: boolean }>`
      SELECT budget_booking_fits(c.d, c.r, c.x, 1) AS fits
        FROM unnest(${cases.map((c) => c.discountLeft)}::bigint[], ${cases.map((c) => c.redemptionsLeft)}::bigint[],
                    ${cases.map((c) => c.rewardMinor)}::bigint[]) WITH ORDINALITY AS c(d, r, x, n)
       ORDER BY c.n`.execute(t.database.db);
      const priced = cases.map((c) => {
        const result = {
          rewards: [{ source: 'campaign', couponId: 7, grossRewardMinor: c.rewardMinor }],
        } as unknown as EngineResult;
        return budgetShortfall(result, { campaignId: 7, period: null, ...c }) === null;
      });
      expect(rows.map((r) => r.fits)).toEqual(priced);
      // Both outcomes were tried.
      expect(new Set(priced).size).toBe(2);
    });
  },
);
