import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import { recordStatusChange } from './balance.store.js';

/** What a balance transaction is (the SQL function `checkout_status_changed` writes the same). */
export const BALANCE_TRANSACTION_KINDS = ['top_up', 'charge', 'refund', 'reservation'] as const;
export type BalanceTransactionKind = (typeof BALANCE_TRANSACTION_KINDS)[number];

/**
 * The statuses of a balance transaction: top-up and refund `completed`; charge `completed`, then
 * `refunded`; reservation `active`, then `used` or `cancelled` (docs/decisions.md, "Balance,
 * reservations, top-ups, refunds").
 */
export const BALANCE_TRANSACTION_STATUSES = ['completed', 'refunded', 'active', 'used', 'cancelled'] as const;
export type BalanceTransactionStatus = (typeof BALANCE_TRANSACTION_STATUSES)[number];

export interface StatusChange {
  readonly merchantId: number;
  readonly transactionId: string;
  readonly kind: BalanceTransactionKind;
  readonly status: BalanceTransactionStatus;
  /** One of BALANCE_TRANSACTION_STATUSES (checked against the document by every test that receives events). */
  readonly previousStatus: string | null;
  readonly amountMinor: number;
  readonly currency: string;
  readonly profileReference: string | null;
  readonly basketId: string | null;
  /** On a refund: what the order's further refunds may still give back. */
  readonly refundableMinor?: number;
}

/**
 * `transaction.status.changed` (docs/decisions.md, "Checkout v1: webhooks"): every status change
 * of a balance transaction is written to the outbox for every webhook of the merchant that asked
 * for it, in the transaction that makes the change, by the same SQL function as the order
 * statements' events: an opaque message id, the event's `sequence` within its transaction, and the
 * same profileReference and basketId on every event of the transaction.
 */
export async function emitStatusChange(
  trx: Kysely<DB> | Transaction<DB>,
  change: StatusChange,
  nowMs: number,
): Promise<number> {
  return recordStatusChange(trx, change, nowMs);
}
