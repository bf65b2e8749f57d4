import { inSchedule, inValidity, type WallClock } from './schedule.js';
import type { IndexedCampaign } from './campaign-index.js';
import type { ConsumerState, EngineBasket } from './types.js';

/**
 * The basket-level conditions of a campaign (CONTRACT section 2): validity at the basket's
 * Timestamp, outlet, channel, coupon code, identified consumer and the consumer's usage limit.
 * Answers how many applications the campaign may have in this basket (>= 1), or why it may not apply.
 * Schedules are checked per position by the product-level rules (a position's OrderTime counts),
 * and against the basket Timestamp for bill campaigns.
 */
export function campaignAllowance(
  entry: IndexedCampaign,
  basket: EngineBasket,
  consumer: ConsumerState | null,
): number | string {
  const c = entry.campaign;
  if (basket.hasDiscounts) return 'basket has discounts';
  if (c.validFromMs !== null && basket.timestamp.utcMs < c.validFromMs) return 'not valid yet';
  if (!inValidity(null, c.validToMs, basket.timestamp.utcMs)) return 'expired';
  if (c.outletIds !== null && (basket.outletId === null || !c.outletIds.includes(basket.outletId))) {
    return 'outlet not included';
  }
  if (c.channels.length > 0 && !c.channels.includes(basket.channel)) return 'channel not included';
  if (c.couponCode !== null && !basket.couponCodes.includes(c.couponCode)) return 'coupon code not presented';
  if (c.requiresConsumer && !basket.consumerKnown) return 'consumer required';
  let max = entry.maxApplications;
  if (c.usageLimitPerConsumer !== null) {
    if (consumer === null || !basket.consumerKnown) return 'usage limit needs an identified consumer';
    const left = c.usageLimitPerConsumer - (consumer.usages.get(c.id) ?? 0);
    if (left <= 0) return 'usage limit reached';
    max = Math.min(max, left);
  }
  if (!(max >= 1)) return 'max applications is 0';
  return max;
}

/** Bill campaigns follow the schedule at the basket Timestamp. */
export function billScheduleOpen(entry: IndexedCampaign, basketClock: WallClock): boolean {
  return inSchedule(entry.campaign.schedule, basketClock);
}
