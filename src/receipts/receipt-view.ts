import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import type { ReceiptKind } from '../store/tables/outbox.js';

/**
 * What a digital receipt shows, whatever it was made from (a granted POS basket, a checkout
 * order): the receipt page renders only this. Amounts in minor units of `currency`.
 */
export interface ReceiptView {
  readonly merchantName: string;
  /**
   * What the receipt says of the merchant who issued it (docs/decisions.md, "Receipts a shop can
   * hand out"); each null when the merchant did not set it.
   */
  readonly issuer: ReceiptIssuer;
  /** The bill's number: the till's BillNumber, else the basket id; the shop's basket id of an order. */
  readonly billNumber: string;
  readonly currency: string;
  /** Language of the page: the consumer's when known, else the merchant's (a tag such as "de"). */
  readonly language: string;
  readonly outlet: { readonly name: string | null; readonly address: string | null } | null;
  readonly time: Date;
  /** The offset the till or app sent, so the receipt shows the wall-clock time of the sale. */
  readonly timeOffsetMinutes: number;
  /** The merchant's time zone: the calendar on which later events (returns, refunds) are dated. */
  readonly timeZone: string;
  readonly positions: readonly ReceiptPosition[];
  readonly rewards: readonly { readonly description: string; readonly valueMinor: number }[];
  /**
   * The campaigns (and loyalty rewards) whose discounts the positions' prices already hold, each
   * named with its share of them, in the order they applied: what the positions' "Discount" came
   * from (docs/decisions.md, "Receipts": the discounts named). Rewards on the whole bill are in
   * `rewards` when they lower the total below the positions (a till's), here when they were spread
   * over the positions (an order's).
   */
  readonly includedDiscounts: readonly { readonly description: string; readonly valueMinor: number }[];
  /** Per VAT rate; empty when the sale carried no VAT data. */
  readonly vats: readonly ReceiptVat[];
  readonly totalGrossMinor: number;
  /** How the total was paid, as far as the service knows it (docs/decisions.md "Receipts"). */
  readonly payments: readonly ReceiptPayment[];
  readonly points: readonly {
    readonly schemeName: string;
    readonly earned: number;
    readonly redeemed: number;
    readonly balanceAfter: number | null;
  }[];
  /** Returns (a till took goods back) and refunds (an order's charge given back), oldest first. */
  readonly returns: readonly ReceiptReturn[];
  readonly hasBillPdf: boolean;
  /** The order's status (checkout), or null. */
  readonly status: string | null;
}

export interface ReceiptIssuer {
  readonly legalName: string | null;
  /** Lines separated by a line break. */
  readonly address: string | null;
  /** The VAT identification number. */
  readonly taxNumber: string | null;
}

export interface ReceiptPayment {
  /** From the consumer's stored balance, from a gift card, or otherwise (cash, card at the till, ...). */
  readonly method: 'balance' | 'gift_card' | 'other';
  readonly amountMinor: number;
}

export interface ReceiptReturn {
  /** `return`: goods the till took back; `refund`: an order's charge given back, in whole or in part. */
  readonly kind: 'return' | 'refund';
  readonly time: Date;
  /** The value of what was returned (the amount refunded), positive. */
  readonly amountMinor: number;
  /** What went back (1 × Cappuccino, 0.1 kg of cheese); none for a whole order's refund. */
  readonly items: readonly ReceiptQuantity[];
  /** What went back to the consumer's stored balance (0 when the till paid it back otherwise). */
  readonly toBalanceMinor: number;
  /** Points the return took back (negative) or gave back (positive), per scheme; changes only. */
  readonly points: readonly { readonly schemeName: string; readonly change: number }[];
}

/** How much of an article, as the sale counted it; written in the reader's language (receipt-text.ts). */
export interface ReceiptQuantity {
  /** Exact decimal text: `2`, `0.245`. */
  readonly quantity: string;
  /** In kg (a weighed article), else pieces. */
  readonly weighed: boolean;
  readonly name: string;
}

export interface ReceiptPosition {
  readonly description: string;
  /** As the sale counted it (a basket may sell 0.5 kg): exact decimal text. */
  readonly quantity: string;
  /** The quantity is in kg. */
  readonly weighed: boolean;
  readonly grossMinor: number;
  /** Discount given on this position, positive. */
  readonly discountMinor: number;
  /** The product properties of the position (allergens, origin, ...). */
  readonly props: readonly { readonly name: string; readonly value: string }[];
}

export interface ReceiptVat {
  /** The rate as sent, e.g. "19" or "7.7"; the page writes it in the reader's language ("7,7 %"). */
  readonly rateText: string;
  readonly netMinor: number;
  readonly taxMinor: number;
  readonly grossMinor: number;
}

/** Loads the receipt of one kind of sale by its source key; undefined when it is gone. */
export interface ReceiptSource {
  readonly kind: ReceiptKind;
  load(db: Kysely<DB>, merchantId: number, sourceRef: string): Promise<ReceiptView | undefined>;
  /** The bill as a PDF, when the sale has one (a till's BillPdf). */
  billPdf?(db: Kysely<DB>, merchantId: number, sourceRef: string): Promise<Buffer | null>;
}
