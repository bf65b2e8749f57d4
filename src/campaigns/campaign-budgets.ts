import type { EngineResult } from '../engine/types.js';
import type { BudgetColumns } from './campaign-options.convert.js';

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

/** Why a campaign's rewards do not fit what is left: no redemption left, or more discount than left. */
export type BudgetShortfall =
  { readonly redemptions: true } | { readonly rewardMinor: number; readonly leftMinor: number };

/** A campaign left out because its rewards do not fit its budgets whole. */
export interface HeldBack {
  readonly campaignId: number;
  readonly shortfall: BudgetShortfall;
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
  /** The campaigns left out, each with why it did not fit. */
  readonly heldBack: HeldBack[];
} {
  const byId = new Map(budgets.map((b) => [b.campaignId, b]));
  const without = new Set<number>();
  const heldBack: HeldBack[] = [];
  for (;;) {
    const result = evaluate(without);
    const booked: BudgetBooking[] = [];
    let refit = false;
    for (const usage of result.couponUsages) {
      const left = byId.get(usage.campaignId);
      if (usage.count <= 0 || left === undefined) continue;
      const shortfall = budgetShortfall(result, left);
      if (shortfall !== null) {
        without.add(usage.campaignId);
        heldBack.push({ campaignId: usage.campaignId, shortfall });
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
    if (!refit) return { result, without, booked, heldBack };
  }
}

/** What is left of the budgets of the campaigns asked for that have one: read, or read locked. */
export type BudgetReader = (campaignIds: readonly number[]) => Promise<readonly BudgetLeft[]>;

/**
 * `fitBudgets` with the budgets read as they are needed: those of the campaigns with a budget
 * (`budgeted`) that applied, and again of any that applies once another is left out, until every
 * campaign with a budget in the result was fitted to what is left of it. Read under a lock, the
 * result is what a booking may book.
 */
export async function fitReadBudgets(
  evaluate: (without: ReadonlySet<number>) => EngineResult,
  budgeted: ReadonlySet<number>,
  read: BudgetReader,
): Promise<ReturnType<typeof fitBudgets>> {
  const known = new Map<number, BudgetLeft>();
  const asked = new Set<number>();
  for (;;) {
    const fitted = fitBudgets(evaluate, [...known.values()]);
    const unread = fitted.result.couponUsages
      .filter((u) => u.count > 0 && budgeted.has(u.campaignId) && !asked.has(u.campaignId))
      .map((u) => u.campaignId);
    if (unread.length === 0) return fitted;
    for (const id of unread) asked.add(id);
    // A campaign whose budget was removed since the rule set was read is not in the answer.
    for (const left of await read(unread)) known.set(left.campaignId, left);
  }
}

/** A campaign's budgets and what the grants booked of them (campaign-budgets.store.ts). */
export interface BudgetUsage {
  readonly campaignId: number;
  readonly limits: BudgetColumns;
  readonly totalUsedMinor: number;
  readonly redemptionsUsed: number;
  /** The current period ('YYYY-MM-DD', its first day) of a per-period budget, else null. */
  readonly periodStart: string | null;
  readonly periodUsedMinor: number;
}

/** What is left now of a campaign's budgets, minor units, never below 0; null members: not limited. */
export interface BudgetRemaining {
  readonly totalMinor: number | null;
  readonly redemptions: number | null;
  /** The current period of a per-period budget: its first day and what is left of it. */
  readonly period: { readonly start: string; readonly leftMinor: number } | null;
}

const less = (limit: number | null, used: number) => (limit === null ? null : Math.max(0, limit - used));

export function budgetRemaining(u: BudgetUsage): BudgetRemaining {
  const periodLeft = less(u.limits.budget_period_minor, u.periodUsedMinor);
  return {
    totalMinor: less(u.limits.budget_total_minor, u.totalUsedMinor),
    redemptions: less(u.limits.budget_redemptions, u.redemptionsUsed),
    period:
      u.periodStart === null || periodLeft === null ? null : { start: u.periodStart, leftMinor: periodLeft },
  };
}

/** What is left as the grant's lock reads it: the lesser discount left of the total and the period. */
export function budgetLeft(u: BudgetUsage): BudgetLeft {
  const r = budgetRemaining(u);
  const discounts = [r.totalMinor, r.period?.leftMinor ?? null].filter((v): v is number => v !== null);
  return {
    campaignId: u.campaignId,
    period: u.periodStart,
    discountLeft: discounts.length === 0 ? null : Math.min(...discounts),
    redemptionsLeft: r.redemptions,
  };
}

/**
 * Why a campaign applied in `result` does not fit what is left of its budgets, its whole discount
 * and one redemption; null when it fits.
 */
export function budgetShortfall(result: EngineResult, left: BudgetLeft): BudgetShortfall | null {
  if (left.redemptionsLeft !== null && left.redemptionsLeft < 1) return { redemptions: true };
  const rewardMinor = campaignDiscount(result, left.campaignId);
  if (left.discountLeft !== null && rewardMinor > left.discountLeft) {
    return { rewardMinor, leftMinor: Math.max(0, left.discountLeft) };
  }
  return null;
}
