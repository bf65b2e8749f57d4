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
}
