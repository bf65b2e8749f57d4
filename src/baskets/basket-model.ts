import type { VersionRef } from '../campaigns/live-rules.store.js';
import type { TierBasisRef } from '../engine/tiers.js';
import type { RewardLine } from '../engine/types.js';
import type { Consumer } from '../loyalty/points.store.js';
import type { LoyaltyOut, ReturnResponse, RewardOut } from './basket.types.js';
import type { StoredBasketV1 } from './stored-basket.js';

/**
 * The basket's stored documents: what an upload, a grant and a return keep in the `baskets` and
 * `basket_returns` rows (the `result`, `grant_result` and return columns) for the steps after them.
 * The use cases write them and the store reads them; both import them from here, so neither
 * depends on the other.
 */

/**
 * What an upload keeps so that the grant can book it and a return can reverse it: the basket as
 * the engine saw it, the consumer, and the exact campaign and scheme versions that touched it.
 */
/**
 * What, besides the stored body, rebuilds the basket exactly as the engine saw it at the upload.
 * Null when no campaign or scheme touched the basket: then there is nothing to re-evaluate.
 */
export interface EngineInputs {
  readonly merchantCurrency: string;
  readonly timeZone: string;
  readonly outletId: number;
  readonly couponCodes: string[];
  /**
   * The unique codes among the coupon codes that were unused at the upload, with their campaigns
   * (docs/decisions.md, "Unique codes"); the grant presents those still free. Absent in baskets
   * uploaded before unique codes.
   */
  readonly codes?: PresentedCode[];
  readonly consumerKnown: boolean;
  /** The groups of the basket's articles that have any, as read from the sortiment at the upload. */
  readonly groups: [string, string[]][];
}

/** A unique code a basket presents, and the campaign it belongs to. */
export interface PresentedCode {
  readonly code: string;
  readonly campaignId: number;
}

export interface EngineSnapshot {
  readonly inputs: EngineInputs | null;
  readonly consumer: Consumer | null;
  readonly campaigns: VersionRef[];
  readonly schemes: VersionRef[];
  /**
   * The status-tier bases of the schemes that touched the basket (docs/decisions.md, "Status
   * tiers"): the grant reads the consumer's measures of these with their points. Absent: no tiers.
   */
  readonly tierBases?: TierBasisRef[];
}

/**
 * What the stored `result` column holds: what the grant needs to re-evaluate and book the basket
 * (the answer itself is not kept: the grant computes what it books anew).
 */
export interface StoredResult {
  engine: EngineSnapshot;
  /** Decimal places of the basket's currency (2 for EUR). */
  exponent: number;
  /** The parsed basket; absent in baskets uploaded before it was stored. */
  basket?: StoredBasketV1;
  /**
   * Bought or paid with a gift card (`BasketIdentity.giftCardNamed`): the grant and a return queue
   * no purchase notification and the consumer portal never lists the basket. The grant's SQL
   * function and the portal's query read it by this name (migration 0025).
   */
  giftCard?: true;
}

export interface GrantResponse {
  BasketId: string;
  Granted: true;
  Rewards: RewardOut[];
  LoyaltyInfo: LoyaltyOut[];
}

/** What a grant booked, kept for returns. */
export interface GrantBooking {
  readonly consumer: Consumer | null;
  readonly redeemedInPos: boolean;
  readonly grantedAtMs: number;
  /** The rewards booked as redeemed (none when the POS did not deduct them). */
  readonly rewards: RewardLine[];
  readonly loyalty: {
    schemeId: number;
    earned: number;
    spent: number;
    positionId: number;
    grossRewardMinor: number;
    expiresAtMs: number | null;
  }[];
  readonly usages: { campaignId: number; count: number }[];
}

export interface StoredGrant {
  readonly response: GrantResponse;
  readonly booking: GrantBooking;
  /** The receipt of the granted basket (absent in grants made before receipts). */
  readonly receiptId?: string;
}

/** The request as stored and compared: positions by PositionId, amounts as exact decimal text. */
export interface ReturnRequest {
  ReturnId: string;
  Positions: { PositionId: number; Amount: string }[];
}

/** What one return booked. */
export interface ReturnBooking {
  /** This return's amounts (decimal text). */
  readonly positions: { positionId: number; amount: string }[];
  /** Reward value refunded by this return, minor units. */
  readonly refundedMinor: number;
  /** Line gross this return took back, minor units (absent in returns booked before it was kept). */
  readonly returnedGrossMinor?: number;
  readonly loyalty: {
    schemeId: number;
    /** Earned points this return should take back (cumulative target minus earlier targets). */
    due: number;
    /** Taken back; less than `due` only when the consumer held fewer points (the rest is written off). */
    taken: number;
    shortfall: number;
    /** Spent points given back (the scheme reward was returned). */
    givenBack: number;
  }[];
  /** Campaigns whose usage of this basket this return released. */
  readonly releasedCampaigns: number[];
}

export interface StoredReturn {
  readonly response: ReturnResponse;
  readonly booking: ReturnBooking;
}
