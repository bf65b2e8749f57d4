import { wallClock, type WallClock } from './schedule.js';
import type { EngineBasket, EnginePosition, RewardLine } from './types.js';

/**
 * The engine's own working copy of a basket: what is left of every position and of the bill, and
 * which units a product-level reward has already taken. The caller's basket is never written to.
 */
export interface Line {
  readonly position: EnginePosition;
  /** Takes part in rewards: neither the basket nor the position has discounts. */
  readonly eligible: boolean;
  /** Wall clock of the position's OrderTime, else of the basket Timestamp, for schedules. */
  readonly clock: WallClock;
  /** Line gross minus every reward given on it so far. */
  leftMinor: number;
  /** Piece units not yet taken by a product-level reward (0 for kg lines). */
  freePieces: number;
  /** kg line not yet taken by a product-level reward. */
  weighedFree: boolean;
}

export interface BasketState {
  readonly basket: EngineBasket;
  /** Positions sorted by PositionId, so that nothing depends on the order they came in. */
  readonly lines: readonly Line[];
  /** Total of the eligible lines minus every reward so far, never below 0. */
  billLeftMinor: number;
  /** Sum of every campaign reward (product level and bill), for earning on the gross after rewards. */
  campaignRewardsMinor: number;
  readonly rewards: RewardLine[];
}

export function createBasketState(basket: EngineBasket): BasketState {
  const basketClock = wallClock(basket.timestamp);
  const sorted = [...basket.positions].sort((a, b) => a.positionId - b.positionId);
  let bill = 0;
  const lines: Line[] = sorted.map((position) => {
    const eligible = !basket.hasDiscounts && !position.hasDiscounts;
    if (eligible) bill += position.lineGrossMinor;
    const valuable = eligible && position.lineGrossMinor > 0 && position.unitPriceMinor > 0;
    return {
      position,
      eligible,
      clock: position.orderTime === null ? basketClock : wallClock(position.orderTime),
      leftMinor: Math.max(0, position.lineGrossMinor),
      freePieces: valuable && position.unit === 0 ? Math.max(0, Math.floor(position.pieces)) : 0,
      weighedFree: valuable && position.unit === 1,
    };
  });
  return { basket, lines, billLeftMinor: Math.max(0, bill), campaignRewardsMinor: 0, rewards: [] };
}

/** Most a reward on this line may still be: what is left of the line and of the bill. */
export function lineCapMinor(state: BasketState, line: Line): number {
  return Math.min(line.leftMinor, state.billLeftMinor);
}

/** Books a reward on a position (RewardType 1) and takes it off the line and the bill. */
export function bookLineReward(
  state: BasketState,
  line: Line,
  rewardMinor: number,
  source: RewardLine['source'],
  couponId: number,
  name: string,
  version: number,
): void {
  if (rewardMinor <= 0) return;
  line.leftMinor -= rewardMinor;
  state.billLeftMinor -= rewardMinor;
  if (source === 'campaign') state.campaignRewardsMinor += rewardMinor;
  state.rewards.push({
    rewardType: 1,
    productId: line.position.productId ?? '',
    grossRewardMinor: rewardMinor,
    positionId: line.position.positionId,
    couponId,
    name,
    source,
    campaignVersion: version,
  });
}

/** Books a reward on the whole bill (RewardType 2: ProductId empty, position 0). */
export function bookBillReward(
  state: BasketState,
  rewardMinor: number,
  source: RewardLine['source'],
  couponId: number,
  name: string,
  version: number,
): void {
  if (rewardMinor <= 0) return;
  state.billLeftMinor -= rewardMinor;
  if (source === 'campaign') state.campaignRewardsMinor += rewardMinor;
  state.rewards.push({
    rewardType: 2,
    productId: '',
    grossRewardMinor: rewardMinor,
    positionId: 0,
    couponId,
    name,
    source,
    campaignVersion: version,
  });
}

/** Piece units of eligible lines sorted by unit price, highest first, ties to the lower PositionId. */
export function byUnitPriceDesc(a: Line, b: Line): number {
  const d = b.position.unitPriceMinor - a.position.unitPriceMinor;
  return d !== 0 ? d : a.position.positionId - b.position.positionId;
}
