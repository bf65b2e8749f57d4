import { bookBillReward, type BasketState } from '../basket-state.js';
import { billScheduleOpen, campaignAllowance } from '../campaign-conditions.js';
import { discountOnValue } from '../discount.js';
import type { IndexedCampaign } from '../campaign-index.js';
import type { WallClock } from '../schedule.js';
import type { ConsumerState } from '../types.js';

export interface BillOutcome {
  entry: IndexedCampaign;
  /** Applications made (>= 1), or why none. */
  result: number | string;
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
    const c = entry.campaign;
    const allowance = campaignAllowance(entry, state.basket, consumer);
    let result: number | string;
    if (typeof allowance === 'string') result = allowance;
    else if (!billScheduleOpen(entry, basketClock)) result = 'outside schedule';
    else if (base < c.minTotalMinor || base <= 0) result = 'minimum total not reached';
    else {
      const applications =
        c.discount.kind === 'amount' && c.minTotalMinor > 0
          ? Math.min(allowance, Math.floor(base / c.minTotalMinor))
          : 1;
      if (billReward(entry, base, applications) <= 0) result = 'reward would be 0';
      else {
        result = applications;
        applicable.push({ entry, applications, index: outcomes.length });
      }
    }
    outcomes.push({ entry, result });
  }

  const exclusive = applicable.find((a) => a.entry.campaign.exclusive);
  const excluded = exclusive === undefined ? '' : `excluded by exclusive bill campaign ${exclusive.entry.id}`;
  for (const a of applicable) {
    const outcome = outcomes[a.index];
    if (outcome === undefined) continue;
    if (exclusive !== undefined && a !== exclusive) {
      outcome.result = excluded;
      continue;
    }
    const reward = billReward(a.entry, state.billLeftMinor, a.applications);
    if (reward <= 0) {
      outcome.result = 'reward would be 0';
      continue;
    }
    const c = a.entry.campaign;
    bookBillReward(state, reward, 'campaign', c.id, c.name, c.version);
  }
  return outcomes;
}

function billReward(entry: IndexedCampaign, billLeftMinor: number, applications: number): number {
  const d = entry.campaign.discount;
  if (d.kind === 'amount') return Math.min(billLeftMinor, Math.max(0, d.minor) * applications);
  return discountOnValue(d, billLeftMinor);
}
