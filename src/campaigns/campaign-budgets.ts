import type { EngineResult } from '../engine/types.js';

/**
 * Budgets of a campaign (docs/decisions.md, "Budgets"): what is left of them as `lock_campaign_budgets` read
 * it under its lock, and what a grant books of them. Pure: the grant evaluates, and a campaign
 * whose rewards no longer fit is left out and the basket evaluated again without it.
 */

/** What is left of one campaign's budgets; null: not limited. */
export interface BudgetLeft {
  readonly campaignId: number;
  /** The current period of a per-period budget ('YYYY-MM-DD', its first day), else null. */
  readonly period: string | null;
  /** The lesser of the total and the period's discount left, minor units. */
  readonly discountLeft: number | null;
  readonly redemptionsLeft: number | null;
}

/** What a grant books of one campaign's budgets: its discount and one redemption. */
export interface BudgetBooking {
  readonly campaignId: number;
  readonly period: string | null;
  readonly discountMinor: number;
  readonly redemptions: number;
}

/** The discount a campaign's rewards in a result come to, minor units. */
export function campaignDiscount(result: EngineResult, campaignId: number): number {
  let sum = 0;
  for (const r of result.rewards) {
    if (r.source === 'campaign' && r.couponId === campaignId) sum += r.grossRewardMinor;
  }
  return sum;
}

/** A campaign applied in the result fits what is left: its whole discount and one redemption. */
function fits(result: EngineResult, left: BudgetLeft): boolean {
  if (left.redemptionsLeft !== null && left.redemptionsLeft < 1) return false;
  return left.discountLeft === null || campaignDiscount(result, left.campaignId) <= left.discountLeft;
}

/**
 * Evaluates with every campaign whose budget does not cover its rewards left out: a reward is
 * granted whole or not at all (docs/decisions.md, "Budgets"). Leaving a campaign out can change what
 * the others give, so the basket is evaluated again until every applied campaign fits.
 */
export function fitBudgets(
  evaluate: (without: ReadonlySet<number>) => EngineResult,
  budgets: readonly BudgetLeft[],
): {
  readonly result: EngineResult;
  readonly without: ReadonlySet<number>;
  readonly booked: BudgetBooking[];
} {
  const byId = new Map(budgets.map((b) => [b.campaignId, b]));
  const without = new Set<number>();
  for (;;) {
    const result = evaluate(without);
    const booked: BudgetBooking[] = [];
    let refit = false;
    for (const usage of result.couponUsages) {
      const left = byId.get(usage.campaignId);
      if (usage.count <= 0 || left === undefined) continue;
      if (!fits(result, left)) {
        without.add(usage.campaignId);
        refit = true;
        continue;
      }
      booked.push({
        campaignId: usage.campaignId,
        period: left.period,
        discountMinor: campaignDiscount(result, usage.campaignId),
        redemptions: 1,
      });
    }
    if (!refit) return { result, without, booked };
  }
}
