import type { EngineBasket, EngineResult, EnginePosition } from '../engine/types.js';
import type { LoyaltyOut, RewardOut } from './basket.types.js';
import type { StoredBasket } from './stored-basket.js';
import { minorToMajor } from '../shared/money.js';

/**
 * Between the POS v3 wire and the engine: a parsed basket becomes the engine's basket, and the
 * engine's rewards and loyalty lines become the `Rewards` and `LoyaltyInfo` of the documents
 * (major units). Used by the dry run; basket upload and grant can use the same two functions.
 */

export interface EngineBasketOptions {
  outletId: number | null;
  channel: 'pos' | 'checkout';
  /** ContextIdentifiers that are not consumer identifiers (docs/decisions.md, "Coupon codes"). */
  couponCodes: readonly string[];
  consumerKnown: boolean;
  /** The group of each PLU and its ancestors (from the sortiment); absent PLUs have no group. */
  groupsByPlu?: ReadonlyMap<string, readonly string[]>;
}

/** A parsed basket, or one read back from its stored form. */
export function toEngineBasket(parsed: StoredBasket, options: EngineBasketOptions): EngineBasket {
  const positions: EnginePosition[] = parsed.positions.map((p) => ({
    positionId: p.positionId,
    productId: p.productId,
    groupIds: p.productId === null ? [] : [...(options.groupsByPlu?.get(p.productId) ?? [])],
    unit: p.unit,
    pieces: p.pieces,
    unitPriceMinor: p.unitPriceMinor,
    lineGrossMinor: p.lineGrossMinor,
    hasDiscounts: p.hasDiscounts,
    orderTime: p.orderTime,
  }));
  return {
    timestamp: parsed.timestamp,
    hasDiscounts: parsed.hasDiscounts,
    outletId: options.outletId,
    channel: options.channel,
    couponCodes: [...options.couponCodes],
    consumerKnown: options.consumerKnown,
    positions,
  };
}

/** How an engine id appears on the wire (the dry run shows drafts under ids of their own). */
export type WireId = (engineId: number) => number;
const sameId: WireId = (id) => id;

export function rewardsToWire(result: EngineResult, exponent: number, wireId: WireId = sameId): RewardOut[] {
  return result.rewards.map((r) => ({
    RewardType: r.rewardType,
    ProductId: r.productId,
    GrossRewardValue: minorToMajor(r.grossRewardMinor, exponent),
    RewardTriggeringPositionId: r.positionId,
    CouponId: wireId(r.couponId),
    Name: r.name,
  }));
}

/** One LoyaltyInfo item per scheme the basket touches, with one Details entry (docs/decisions.md, "LoyaltyInfo"). */
export function loyaltyToWire(result: EngineResult, exponent: number, wireId: WireId = sameId): LoyaltyOut[] {
  return result.loyalty.map((l) => ({
    LoyaltyId: wireId(l.schemeId),
    Name: l.name,
    Details: [
      {
        PreviousPoints: l.previousPoints,
        NewPoints: l.newPoints,
        PointsInScheme: l.pointsInScheme,
        GrossRewardValue: minorToMajor(l.grossRewardMinor, exponent),
        RewardTriggeringPositionId: l.positionId,
      },
    ],
  }));
}
