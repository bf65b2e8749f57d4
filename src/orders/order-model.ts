import type { ErrorName } from '../shared/errors.js';
import type { PricedBasket } from './pricing.js';

/**
 * The order's documents shared by its pricing, its menu cache and its store: what pricing relied on
 * (the menu's facts, re-checked by the write) and the priced order the write books. The use cases
 * and the store import them from here, so neither depends on the other.
 */

/** What pricing relied on: the order is written only while all of it still holds. */
export interface MenuFacts {
  readonly sortimentId: number;
  /** `sortiments.version`: raised by every single write of articles or groups. */
  readonly version: number;
  /** `sortiments.current_gen`: raised when a bulk upload switches the generation. */
  readonly currentGen: number;
  /** `merchants.rules_version`: raised by every change of campaigns. */
  readonly rulesVersion: number;
}

export interface PricedOrder extends PricedBasket {
  /** The article's name per PLU, for the receipt. */
  readonly descriptions: Record<string, string>;
  /**
   * The campaigns that gave the order a reward, each with its applications and its discount in
   * minor units, in the order they applied; absent when none did (and in orders priced before
   * 2026-12-06, which kept no campaigns).
   */
  readonly campaigns?: readonly OrderCampaign[];
}

/** A campaign's part in an order's price: the campaign's page counts it with the tills' baskets. */
export interface OrderCampaign {
  readonly campaignId: number;
  /**
   * Its name when the order was priced, for the customer's receipt; absent in orders priced
   * before 2026-12-06, 09:00 UTC (their receipts name the campaign as it is called now).
   */
  readonly name?: string;
  readonly uses: number;
  readonly discountMinor: number;
}

/**
 * What the booking of an order (`book_order`) may refuse it for, by error name: the order
 * statements store the catalog's answer to each under the order's Idempotency-Key.
 */
export const ORDER_REFUSALS = [
  'profileReferenceUnusable',
  'orderExists',
  'chargeNotAllowed',
  'currencyMismatch',
  'reservationNotUsable',
  'checkoutInsufficientBalance',
] as const satisfies readonly ErrorName[];

export type OrderRefusal = (typeof ORDER_REFUSALS)[number];

/** The refusal `book_order` named; a name it may not give is a fault of the service. */
export function orderRefusal(name: string): OrderRefusal {
  const known = ORDER_REFUSALS.find((r) => r === name);
  if (known === undefined) throw new Error(`book_order refused for an unknown reason: ${name}`);
  return known;
}

/** What an order's booking writes, the same whichever way the order is written. */
export interface OrderBookingFacts {
  readonly orderId: string;
  readonly basketId: string;
  readonly receiptId: string;
  readonly currency: string;
  readonly totalGrossMinor: number;
  readonly charge: boolean;
  readonly liabilityAccountId: number | null;
  /** Id of the charge's balance transaction. */
  readonly transactionId: string;
  readonly reservation: { readonly reference: string; readonly cancelRemainingAmount: boolean } | null;
  /** The answer's JSON text up to its `vats`, without the closing brace: the booking adds the rest. */
  readonly answerHead: string;
}
