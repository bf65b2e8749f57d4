/**
 * Inputs and outputs of the pure reward and loyalty engine (docs/decisions.md, "Reward engine rules").
 * Every amount is an integer count of minor units; every percentage is in basis points
 * (hundredths of a percent: 12.5 % = 1250). Time always comes in as an input.
 */

import type { Reason } from './reasons.js';

/** A point in time together with the offset the terminal sent; wall clock = utcMs + offsetMinutes * 60000. */
export interface Instant {
  utcMs: number;
  offsetMinutes: number;
}

export type Selector = { plu: string } | { group: string };

export type Discount =
  { kind: 'percent'; bp: number } | { kind: 'amount'; minor: number } | { kind: 'price'; minor: number };

export interface ScheduleWindow {
  /** ISO weekdays, 1 = Monday .. 7 = Sunday, of the day the window starts. */
  days: number[];
  /** Minutes of the day, wall clock, inclusive. */
  fromMinute: number;
  /** Minutes of the day, wall clock, exclusive. A value below fromMinute runs past midnight. */
  toMinute: number;
}

export interface Campaign {
  id: number;
  version: number;
  name: string;
  type: 'bill' | 'product' | 'combination' | 'quantity';
  discount: Discount;
  /** product, quantity: which articles qualify; empty = every article. */
  products: Selector[];
  /** combination: the parts one application needs. */
  combination: { selector: Selector; quantity: number }[];
  /** quantity: group size is buy + get; the `get` cheapest units of a full group are rewarded. */
  buy: number;
  get: number;
  /** bill: minimum total left after product-level rewards (0 = none). */
  minTotalMinor: number;
  /** Per basket; null = default (bill 1, others unlimited). */
  maxApplications: number | null;
  couponCode: string | null;
  requiresConsumer: boolean;
  /** Inclusive. */
  validFromMs: number | null;
  /** Exclusive. */
  validToMs: number | null;
  /** Empty = always. */
  schedule: ScheduleWindow[];
  /** null = every outlet. */
  outletIds: number[] | null;
  /** Empty = both. */
  channels: ('pos' | 'checkout')[];
  priority: number;
  exclusive: boolean;
  usageLimitPerConsumer: number | null;
  /** How the campaign combines with others on a unit (stacking.ts); absent or null = today's rule. */
  stacking?: Stacking | null;
  /**
   * Only for consumers whose tier in the scheme, before the basket, is one of `names` (compared
   * ignoring case; a name the scheme no longer defines never matches); absent or null: everyone.
   */
  tiers?: TierLimit | null;
}

/** The status tiers of one loyalty scheme a campaign is limited to (docs/decisions.md, "Status tiers"). */
export interface TierLimit {
  schemeId: number;
  names: string[];
}

/**
 * `exclusive`: one reward per unit like the default, and no stacked campaign adds to the lines it
 * rewards; `stackable`: adds to every line not taken exclusively or by a group; `group`: adds only
 * to lines that have nothing yet or only rewards of the same group.
 */
export type Stacking = { mode: 'exclusive' } | { mode: 'stackable' } | { mode: 'group'; group: string };

export type EarnRule =
  | { per: 'amount'; amountMinor: number; points: number }
  | { per: 'unit'; products: Selector[]; points: number };

export type SchemeReward =
  | { threshold: number; type: 'product'; products: Selector[]; discount: Discount }
  | { threshold: number; type: 'bill'; discount: Discount };

export interface LoyaltyScheme {
  id: number;
  version: number;
  name: string;
  earn: EarnRule[];
  reward: SchemeReward | null;
  validFromMs: number | null;
  validToMs: number | null;
  outletIds: number[] | null;
  pointsExpireAfterDays: number | null;
  /** Status tiers, thresholds ascending (tiers.ts); absent or empty: no tiers, today's earning. */
  tiers?: Tier[];
  /** What a consumer's tier is measured on; set exactly when tiers are. */
  tierBasis?: TierBasis | null;
}

/**
 * A status tier of a scheme: reached when the consumer's measure over the period is at least
 * `threshold` (points, or minor units spent); points earned in the scheme are multiplied by
 * `multiplierPermille` / 1000 (1500 = 1.5), rounded down.
 */
export interface Tier {
  name: string;
  threshold: number;
  multiplierPermille: number;
}

export type TierPeriod =
  { kind: 'rolling'; days: number } | { kind: 'calendar'; unit: 'month' | 'quarter' | 'year' };

/** `points`: points earned in the scheme minus those returns took back; `spend`: gross of granted baskets, minor units. */
export interface TierBasis {
  measure: 'points' | 'spend';
  period: TierPeriod;
}

export interface EnginePosition {
  positionId: number;
  productId: string | null;
  /** The article's group and its ancestors, resolved by the caller. */
  groupIds: string[];
  /** 0 pieces, 1 kg (kg takes part in value rules only, never in piece-count rules). */
  unit: 0 | 1;
  /** Whole pieces for unit 0 (the caller floors the Amount), 0 for kg. */
  pieces: number;
  /** CurrentGrossPrice (else RegularGrossPrice) per unit. */
  unitPriceMinor: number;
  /** unitPrice * Amount rounded half away from zero (computed by the caller). */
  lineGrossMinor: number;
  /** The position takes part in no reward (it still earns points). */
  hasDiscounts: boolean;
  orderTime: Instant | null;
}

export interface EngineBasket {
  timestamp: Instant;
  hasDiscounts: boolean;
  outletId: number | null;
  channel: 'pos' | 'checkout';
  /** ContextIdentifiers that are not consumer identifiers. */
  couponCodes: string[];
  consumerKnown: boolean;
  positions: EnginePosition[];
}

export interface ConsumerState {
  /** campaignId -> times used by this consumer (granted). */
  usages: ReadonlyMap<number, number>;
  /** schemeId -> committed, unexpired points. */
  points: ReadonlyMap<number, number>;
  /**
   * schemeId -> the consumer's tier measure over the scheme's period before this basket (points
   * or minor units spent); only schemes with tiers. Absent: no tiers counted (base earning).
   */
  tierMeasures?: ReadonlyMap<number, number>;
  /**
   * schemeId -> the name of the consumer's tier, lower case; filled by evaluateBasket from the
   * measures and the schemes' tiers when a campaign is limited to tiers (callers leave it out).
   */
  tierNames?: ReadonlyMap<number, string>;
}

export interface RewardLine {
  rewardType: 1 | 2;
  productId: string;
  grossRewardMinor: number;
  positionId: number;
  couponId: number;
  name: string;
  source: 'campaign' | 'scheme';
  campaignVersion: number;
}

export interface LoyaltyLine {
  schemeId: number;
  name: string;
  previousPoints: number;
  earnedPoints: number;
  spentPoints: number;
  newPoints: number;
  pointsInScheme: number;
  grossRewardMinor: number;
  positionId: number;
  /** Version of the scheme that was evaluated. */
  schemeVersion: number;
  /** When the points earned in this basket expire (basket timestamp + pointsExpireAfterDays), null = never. */
  earnedPointsExpireAtMs: number | null;
}

export interface Explanation {
  campaignId: number;
  applied: boolean;
  applications: number;
  reason: Reason | 'applied';
  /**
   * The campaigns that kept it from applying, in the order they applied (dry run only): for no
   * free units, those whose rewards took the units of its articles in this basket (processed
   * before it); for a bill campaign, the exclusive one that applied.
   */
  blockedBy?: number[];
}

export interface EngineResult {
  rewards: RewardLine[];
  loyalty: LoyaltyLine[];
  explanations: Explanation[];
  couponUsages: { campaignId: number; count: number }[];
}

export interface EvaluateOptions {
  /** One explanation per campaign considered (dry run); default false: explanations only of applied campaigns. */
  explain?: boolean;
}
