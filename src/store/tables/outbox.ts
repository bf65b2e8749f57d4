import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { CreatedAt, Timestamp } from './columns.js';

/** The payload of a message: whatever its topic's handler reads, stored as JSON. */
export type OutboxPayload = Record<string, unknown>;

export type OutboxStatus = 'pending' | 'delivered' | 'dead';

export interface OutboxMessagesTable {
  id: Generated<number>;
  merchant_id: number;
  topic: string;
  payload: JSONColumnType<OutboxPayload, string, string>;
  status: Generated<OutboxStatus>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  /** The lease of the process that claimed the message; null when nobody holds it. */
  locked_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  delivered_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface OutboxAttemptsTable {
  id: Generated<number>;
  message_id: number;
  attempt: number;
  started_at: Timestamp;
  finished_at: Timestamp;
  ok: boolean;
  error: string | null;
  detail: JSONColumnType<Record<string, unknown>, string, string> | null;
}

export type ReceiptKind = 'pos_basket' | 'checkout_order';

export interface ReceiptsTable {
  /** Public, unguessable: 16 random bytes, base64url. */
  id: string;
  merchant_id: number;
  kind: ReceiptKind;
  /** The key of what the receipt shows: "<trackingUnitId>/<basketId>" or an order's id. */
  source_ref: string;
  created_at: CreatedAt;
}
