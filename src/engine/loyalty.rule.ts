import {
  bookBillReward,
  bookLineReward,
  byUnitPriceDesc,
  lineCapMinor,
  type BasketState,
} from './basket-state.js';
import { discountOnUnits, discountOnValue } from './discount.js';
import { inValidity } from './schedule.js';
import { anySelectorMatches } from './selector.js';
import { consumerTier, multiplyPoints } from './tiers.js';
import type {
  ConsumerState,
  EarnRule,
  EngineBasket,
  LoyaltyLine,
  LoyaltyScheme,
  SchemeReward,
} from './types.js';

const MS_PER_DAY = 86_400_000;

/**
 * Points one basket earns in one scheme, at most: a lot of points is a 32-bit integer where it is
 * stored, and no real bill comes near (a point per cent on ten million euros).
 */
export const MAX_POINTS_PER_BASKET = 1_000_000_000;

/**
 * Loyalty schemes (docs/decisions.md, "Campaigns and schemes"), after every campaign reward, in scheme id order.
 * - Points need an identified consumer: without one there is no LoyaltyInfo at all.
 * - A scheme counts when it is valid at the basket Timestamp (validFrom inclusive, validTo
 *   exclusive) and at the basket's outlet; every such scheme gets a line, even with 0 points.
 * - Earning happens before the scheme's own reward: `per amount` on the whole basket's gross after
 *   campaign rewards (positions with HasDiscounts and kg lines included), whole multiples only;
 *   `per unit` per whole piece of a qualifying article (HasDiscounts included, kg never).
 *   The basket's HasDiscounts does not stop earning.
 * - Redemption, at most once per basket and never when the basket has discounts: when
 *   committed + earned >= threshold and the basket holds what the reward needs; it spends exactly
 *   the threshold. A product reward takes the most expensive qualifying piece unit that no
 *   campaign took (ties to the lower PositionId) and applies the discount to that one unit. A bill
 *   reward applies to the bill left after campaign rewards; an `amount` reward only when that bill
 *   is at least the amount. A reward that would be worth 0 is not redeemed.
 */
/**
 * Whether a scheme counts for a basket: valid at its Timestamp (validFrom inclusive, validTo
 * exclusive) and at its outlet. Only such a scheme earns, redeems and gives a consumer a tier
 * for the basket (docs/decisions.md, "Status tiers", "Where the scheme is not valid").
 */
export function schemeValidFor(scheme: LoyaltyScheme, basket: EngineBasket): boolean {
  if (!inValidity(scheme.validFromMs, scheme.validToMs, basket.timestamp.utcMs)) return false;
  const outletIds = scheme.outletIds;
  return outletIds === null || (basket.outletId !== null && outletIds.includes(basket.outletId));
}

export function evaluateSchemes(
  schemes: readonly LoyaltyScheme[],
  state: BasketState,
  consumer: ConsumerState | null,
): LoyaltyLine[] {
  if (consumer === null || schemes.length === 0) return [];
  const basket = state.basket;
  let grossMinor = 0;
  for (const p of basket.positions) grossMinor += p.lineGrossMinor;
  const grossAfterCampaignsMinor = Math.max(0, grossMinor - state.campaignRewardsMinor);

  const out: LoyaltyLine[] = [];
  const sorted = [...schemes].sort((a, b) => a.id - b.id || b.version - a.version);
  for (const scheme of sorted) {
    if (!schemeValidFor(scheme, basket)) continue;
    const previousPoints = consumer.points.get(scheme.id) ?? 0;
    let earnedPoints = 0;
    for (const rule of scheme.earn) earnedPoints += earn(rule, state, grossAfterCampaignsMinor);
    // A status tier multiplies what the scheme earns, rounded down (docs/decisions.md, "Status tiers").
    const tier = consumerTier(scheme, consumer.tierMeasures?.get(scheme.id));
    earnedPoints = Math.min(multiplyPoints(earnedPoints, tier), MAX_POINTS_PER_BASKET);

    let spentPoints = 0;
    let grossRewardMinor = 0;
    let positionId = 0;
    const reward = scheme.reward;
    if (
      reward !== null &&
      reward.threshold > 0 &&
      !basket.hasDiscounts &&
      previousPoints + earnedPoints >= reward.threshold
    ) {
      const redeemed = redeem(reward, scheme, state);
      if (redeemed !== null) {
        spentPoints = reward.threshold;
        grossRewardMinor = redeemed.rewardMinor;
        positionId = redeemed.positionId;
      }
    }
    out.push({
      schemeId: scheme.id,
      name: scheme.name,
      previousPoints,
      earnedPoints,
      spentPoints,
      newPoints: previousPoints + earnedPoints - spentPoints,
      pointsInScheme: reward?.threshold ?? 0,
      grossRewardMinor,
      positionId,
      schemeVersion: scheme.version,
      earnedPointsExpireAtMs:
        scheme.pointsExpireAfterDays === null
          ? null
          : basket.timestamp.utcMs + scheme.pointsExpireAfterDays * MS_PER_DAY,
    });
  }
  return out;
}

function earn(rule: EarnRule, state: BasketState, grossAfterCampaignsMinor: number): number {
  if (rule.points <= 0) return 0;
  if (rule.per === 'amount') {
    if (rule.amountMinor <= 0) return 0;
    return Math.floor(grossAfterCampaignsMinor / rule.amountMinor) * rule.points;
  }
  let pieces = 0;
  for (const p of state.basket.positions) {
    if (p.unit === 0 && p.pieces > 0 && anySelectorMatches(rule.products, p)) pieces += Math.floor(p.pieces);
  }
  return pieces * rule.points;
}

function redeem(
  reward: SchemeReward,
  scheme: LoyaltyScheme,
  state: BasketState,
): { rewardMinor: number; positionId: number } | null {
  if (reward.type === 'bill') {
    const left = state.billLeftMinor;
    const d = reward.discount;
    if (d.kind === 'amount' && left < d.minor) return null;
    const value = discountOnValue(d, left);
    if (value <= 0) return null;
    bookBillReward(state, value, 'scheme', scheme.id, scheme.name, scheme.version);
    return { rewardMinor: value, positionId: 0 };
  }
  const candidates = state.lines
    .filter(
      (l) =>
        l.eligible &&
        l.position.unit === 0 &&
        l.freePieces > 0 &&
        anySelectorMatches(reward.products, l.position),
    )
    .sort(byUnitPriceDesc);
  for (const line of candidates) {
    const value = Math.min(
      discountOnUnits(reward.discount, line.position.unitPriceMinor, 1),
      lineCapMinor(state, line),
    );
    if (value <= 0) continue;
    line.freePieces -= 1;
    bookLineReward(state, line, value, 'scheme', scheme.id, scheme.name, scheme.version);
    return { rewardMinor: value, positionId: line.position.positionId };
  }
  return null;
}
