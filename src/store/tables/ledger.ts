import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Timestamp } from './columns.js';

/** Row types of the stored-value ledger. */

export type AccountKind = 'liability' | 'card' | 'profile';

export type TransferKind = 'top_up' | 'withdrawal' | 'merge' | 'charge' | 'refund';

export interface LedgerAccountsTable {
  merchant_id: number;
  id: Generated<number>;
  kind: AccountKind;
  currency: string;
  /** Credits minus debits, kept in the statement that writes each transfer; 0 for liability. */
  balance_minor: Generated<number>;
  status: Generated<'open' | 'closed'>;
  created_at: CreatedAt;
}

export interface LedgerTransfersTable {
  merchant_id: number;
  id: Generated<number>;
  /** Client-supplied idempotency key (POS transactionId), or one we made; unique per merchant. */
  transaction_id: string;
  kind: TransferKind;
  debit_account_id: number;
  credit_account_id: number;
  amount_minor: number;
  currency: string;
  card_id: number | null;
  token_id: string | null;
  /** Balance of the customer account the operation addressed, right after it. */
  balance_after_minor: number;
  tracking_unit_id: string | null;
  created_at: Timestamp;
  /** What authorised the booking: md5 or v2 SecurityToken, the operator, or unrecorded (older). */
  authorised_by: ColumnType<TransferAuthorisation, TransferAuthorisation | undefined, never>;
  /** SHA-256 (hex) of the SecurityToken or signature that authorised it. */
  authorisation_sha256: ColumnType<string | null, string | null | undefined, never>;
}

export type TransferAuthorisation = 'unrecorded' | 'md5' | 'v2' | 'operator' | 'checkout' | 'portal';
