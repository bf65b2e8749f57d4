import { inSchedule, type WallClock } from './schedule.js';
import { CHANNEL_BITS, type IndexedCampaign } from './campaign-index.js';
import type { ConsumerState, EngineBasket, TierLimit } from './types.js';
import { FIXED_REASONS as R, onlyFor, type Reason } from './reasons.js';

/**
 * The basket-level conditions of a campaign (docs/decisions.md, "Reward engine rules"): validity at the basket's
 * Timestamp, outlet, channel, coupon code, identified consumer, the consumer's status tier and usage limit.
 * Answers how many applications the campaign may have in this basket (>= 1), or why it may not apply.
 * Schedules are checked per position by the product-level rules (a position's OrderTime counts),
 * and against the basket Timestamp for bill campaigns.
 */
export function campaignAllowance(
  entry: IndexedCampaign,
  basket: EngineBasket,
  consumer: ConsumerState | null,
): number | Reason {
  // Reads only the entry's own copies of the campaign's fields (see IndexedCampaign).
  if (basket.hasDiscounts) return R.basket_has_discounts;
  const at = basket.timestamp.utcMs;
  if (at < entry.validFromMs) return R.not_valid_yet;
  if (at >= entry.validToMs) return R.expired;
  const outletIds = entry.outletIds;
  if (outletIds !== null && (basket.outletId === null || !outletIds.includes(basket.outletId))) {
    return R.outlet_not_included;
  }
  if ((entry.channelMask & (CHANNEL_BITS[basket.channel] ?? 0)) === 0) return R.channel_not_included;
  if (entry.couponCode !== null && !basket.couponCodes.includes(entry.couponCode))
    return R.coupon_code_not_presented;
  if (entry.requiresConsumer && !basket.consumerKnown) return R.consumer_required;
  const tiers = entry.campaign.tiers;
  if (tiers && !tierAllows(tiers, basket, consumer)) return onlyFor(tiers.names);
  let max = entry.maxApplications;
  const limit = entry.usageLimitPerConsumer;
  if (limit !== null) {
    if (consumer === null || !basket.consumerKnown) return R.usage_limit_needs_consumer;
    const left = limit - (consumer.usages.get(entry.id) ?? 0);
    if (left <= 0) return R.usage_limit_reached;
    max = Math.min(max, left);
  }
  if (!(max >= 1)) return R.max_applications_zero;
  return max;
}

/**
 * Whether the consumer's tier in the limit's scheme (before the basket) is one of the names; no
 * identified consumer or no tier never is.
 */
export function tierAllows(limit: TierLimit, basket: EngineBasket, consumer: ConsumerState | null): boolean {
  if (consumer === null || !basket.consumerKnown) return false;
  const held = consumer.tierNames?.get(limit.schemeId);
  if (held === undefined) return false;
  for (const name of limit.names) if (name.toLowerCase() === held) return true;
  return false;
}

/** Bill campaigns follow the schedule at the basket Timestamp. */
export function billScheduleOpen(entry: IndexedCampaign, basketClock: WallClock): boolean {
  return inSchedule(entry.campaign.schedule, basketClock);
}
