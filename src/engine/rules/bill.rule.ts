import { bookBillReward, type BasketState } from '../basket-state.js';
import { billScheduleOpen, campaignAllowance } from '../campaign-conditions.js';
import { discountOnValue } from '../discount.js';
import type { IndexedCampaign } from '../campaign-index.js';
import type { WallClock } from '../schedule.js';
import type { ConsumerState } from '../types.js';
import { excludedBy, FIXED_REASONS as R, type Reason } from '../reasons.js';

export interface BillOutcome {
  entry: IndexedCampaign;
  /** Applications made (>= 1), or why none. */
  result: number | Reason;
  /** The exclusive bill campaign that applied instead, when that is why this one did not. */
  excludedBy?: number;
}

/**
 * bill campaigns, after every product-level reward (docs/decisions.md, "Campaigns and schemes"), in priority order:
 * - `minTotal` is checked against the total left after product-level rewards (positions with
 *   HasDiscounts do not count towards it and get nothing).
 * - `percent` of, or `price` for, the bill left so far (after earlier bill rewards): one
 *   application. `amount` off: one application per full multiple of `minTotal` (once when
 *   `minTotal` is 0), up to `maxApplications` (default 1).
 * - If any applicable campaign is `exclusive`, the first of them in priority order is the only
 *   bill reward.
 * - No reward exceeds the bill left.
 */
export function applyBillCampaigns(
  entries: readonly IndexedCampaign[],
  state: BasketState,
  basketClock: WallClock,
  consumer: ConsumerState | null,
): BillOutcome[] {
  const outcomes: BillOutcome[] = [];
  const base = state.billLeftMinor;
  const applicable: { entry: IndexedCampaign; applications: number; index: number }[] = [];
  for (const entry of entries) {
    const result = billApplications(
      entry,
      campaignAllowance(entry, state.basket, consumer),
      base,
      basketClock,
    );
    if (typeof result === 'number') applicable.push({ entry, applications: result, index: outcomes.length });
    outcomes.push({ entry, result });
  }

  const exclusive = applicable.find((a) => a.entry.campaign.exclusive);
  for (const a of applicable) {
    const outcome = outcomes[a.index];
    if (outcome === undefined) continue;
    if (exclusive !== undefined && a !== exclusive) {
      outcome.result = excludedBy(exclusive.entry.id);
      outcome.excludedBy = exclusive.entry.id;
      continue;
    }
    const reward = billReward(a.entry, state.billLeftMinor, a.applications);
    if (reward <= 0) {
      outcome.result = R.reward_zero;
      continue;
    }
    const c = a.entry.campaign;
    bookBillReward(state, reward, 'campaign', c.id, c.name, c.version);
  }
  return outcomes;
}

/**
 * Applications of one bill campaign against the total left after product-level rewards (`base`),
 * given its basket-level allowance, or why it cannot apply.
 */
export function billApplications(
  entry: IndexedCampaign,
  allowance: number | Reason,
  base: number,
  basketClock: WallClock,
): number | Reason {
  const c = entry.campaign;
  if (typeof allowance === 'string') return allowance;
  if (!billScheduleOpen(entry, basketClock)) return R.outside_schedule;
  if (base < c.minTotalMinor || base <= 0) return R.minimum_total_not_reached;
  const applications =
    c.discount.kind === 'amount' && c.minTotalMinor > 0
      ? Math.min(allowance, Math.floor(base / c.minTotalMinor))
      : 1;
  return billReward(entry, base, applications) <= 0 ? R.reward_zero : applications;
}

/** The reward of `applications` of a bill campaign on the bill left, never more than it. */
export function billReward(entry: IndexedCampaign, billLeftMinor: number, applications: number): number {
  const d = entry.campaign.discount;
  if (d.kind === 'amount') return Math.min(billLeftMinor, Math.max(0, d.minor) * applications);
  return discountOnValue(d, billLeftMinor);
}
