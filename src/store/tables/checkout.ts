import type { ColumnType, Generated } from 'kysely';
import type { Json, Timestamp } from './columns.js';

/** Row types of the checkout v1 tables (migration 0012-checkout). */

type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface CheckoutClientsTable {
  merchant_id: number;
  id: Generated<number>;
  name: string;
  /** SHA-256 (hex) of the access token; the token itself is shown once, at creation. */
  access_token_sha256: string;
  /** Key of the Security-Token HMAC: kept as it is, like a terminal's checksumSecret. */
  security_secret: string;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  revoked_at: NullableTimestamp;
}

export type OrderStatus = 'completed' | 'refunded';

export interface CheckoutOrdersTable {
  merchant_id: number;
  id: string;
  client_id: number;
  basket_id: string;
  profile_id: number;
  status: OrderStatus;
  currency: string;
  total_gross_minor: number;
  charged_minor: Generated<number>;
  receipt_id: string | null;
  /** The priced order (src/orders/order.store.ts, StoredOrder). */
  priced: Json<'checkout_orders.priced'>;
  created_at: Timestamp;
  refunded_at: NullableTimestamp;
  /** What refunds gave back so far, never more than charged_minor (migration 0031). */
  refunded_minor: Generated<number>;
}

/** A refund of an order, whole or in part (migration 0031-order-refunds). */
export interface CheckoutRefundsTable {
  merchant_id: number;
  id: string;
  order_id: string;
  /** 1, 2, ... within the order: the refunds' order. */
  seq: number;
  amount_minor: number;
  /** The positions it took back (src/orders/refund.store.ts, RefundedPosition[]). */
  positions: Json<'checkout_refunds.positions'>;
  /** The balance transaction of kind `refund`, when money went back to the balance. */
  transaction_id: string | null;
  created_at: Timestamp;
  /** Made in the portal by this user (migration 0063); null: by the shop, through the checkout interface. */
  portal_user_id: ColumnType<number | null, number | null | undefined, never>;
  /** The reason the portal user gave. */
  reason: ColumnType<string | null, string | null | undefined, never>;
  /** The portal request's own id: a request sent twice answers the first refund. */
  request_id: ColumnType<string | null, string | null | undefined, never>;
  /** What the portal request asked for, minor units; null: all that was refundable. */
  asked_minor: ColumnType<number | null, number | null | undefined, never>;
}

export type ReservationStatus = 'active' | 'used' | 'cancelled';

export interface CheckoutReservationsTable {
  merchant_id: number;
  id: string;
  profile_id: number;
  currency: string;
  amount_minor: number;
  remaining_minor: number;
  status: ReservationStatus;
  expires_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type BalanceTransactionKind = 'top_up' | 'charge' | 'refund' | 'reservation';

export interface BalanceTransactionsTable {
  merchant_id: number;
  id: string;
  profile_id: number;
  kind: BalanceTransactionKind;
  status: string;
  amount_minor: number;
  currency: string;
  order_id: string | null;
  reservation_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** How many webhook events the transaction has had: the `sequence` of its latest (migration 0029). */
  event_sequence: Generated<number>;
  /** The profileReference and basketId its events carry, kept from the first that named them. */
  event_profile_reference: ColumnType<string | null, string | null | undefined, string | null>;
  event_basket_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface CheckoutIdempotencyKeysTable {
  client_id: number;
  key: string;
  request_sha256: string;
  status: 'in_flight' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** The claim of the request that took the key while it works (migration 0052); null: written done at once. */
  claim: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface WebhooksTable {
  merchant_id: number;
  id: string;
  url: string;
  event: string;
  secret: string;
  created_at: Timestamp;
  deleted_at: NullableTimestamp;
}
