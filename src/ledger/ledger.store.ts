import { CompiledQuery, type Kysely, type Transaction, sql } from 'kysely';
import type { AccountKind, DB, TransferAuthorisation, TransferKind } from '../store/schema.js';
import type { PlannedTransfer } from './rules/posting-rules.js';
import type { CreatedRange, PageRequest } from '../shared/paging.js';

/**
 * The ledger's store: accounts and immutable transfers. Every posting is ONE SQL statement that
 * changes the customer account's cached balance under the planned guard and writes the transfer
 * row, so there is no transaction to leave open (PGlite) and no window between check and write
 * (PostgreSQL): a concurrent posting makes the guard fail instead of the balance go negative,
 * and the CHECK (balance >= 0) of the table is a second line of defence.
 */

type Db = Kysely<DB> | Transaction<DB>;

/** The merchant's stored-value liability account in a currency, created on first use. */
export async function ensureLiabilityAccount(db: Db, merchantId: number, currency: string): Promise<number> {
  const existing = await findLiabilityAccount(db, merchantId, currency);
  if (existing !== null) return existing;
  await sql`INSERT INTO ledger_accounts (merchant_id, kind, currency) VALUES (${merchantId}, 'liability', ${currency})
            ON CONFLICT (merchant_id, currency) WHERE kind = 'liability' DO NOTHING`.execute(db);
  const created = await findLiabilityAccount(db, merchantId, currency);
  if (created === null) throw new Error('liability account could not be created');
  return created;
}

/** The merchant's stored-value liability account in a currency; null before its first use. */
export async function findLiabilityAccount(
  db: Db,
  merchantId: number,
  currency: string,
): Promise<number | null> {
  const row = await db
    .selectFrom('ledger_accounts')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', 'liability')
    .where('currency', '=', currency)
    .executeTakeFirst();
  return row?.id ?? null;
}

export async function createAccount(
  db: Db,
  merchantId: number,
  kind: Exclude<AccountKind, 'liability'>,
  currency: string,
): Promise<number> {
  const row = await db
    .insertInto('ledger_accounts')
    .values({ merchant_id: merchantId, kind, currency })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** An account opened or closed (a card locked, unlocked, released or linked to a profile). */
export async function setAccountStatus(db: Db, accountId: number, status: 'open' | 'closed'): Promise<void> {
  await db.updateTable('ledger_accounts').set({ status }).where('id', '=', accountId).execute();
}

export interface TransferMeta {
  readonly merchantId: number;
  readonly transactionId: string;
  readonly currency: string;
  readonly cardId: number | null;
  readonly tokenId: string | null;
  readonly trackingUnitId: string | null;
  readonly nowMs: number;
  /** What authorised the booking, recorded with it: the scheme and the token's SHA-256. */
  readonly authorisation: { readonly by: TransferAuthorisation; readonly sha256: string | null };
  /** The terminal as authenticated, re-checked by the posting statement; null: no terminal. */
  readonly terminal: TerminalFacts | null;
}

/** What a terminal's authentication relied on; a booking is made only while all of it holds. */
export interface TerminalFacts {
  readonly devKeyId: number;
  readonly checksumSecret: string;
  readonly requireSecurityTokenV2: boolean;
  readonly requireTransactionId: boolean;
}

/**
 * Facts about the card that the plan was made on, checked by the posting statement itself: the
 * card is still registered and unexpired and still pays from the planned account. With these, a
 * plan made on a cached card can never book against a locked, released or relinked card.
 */
export interface CardFacts {
  readonly cardId: number;
  readonly liabilityAccountId: number;
}

export type PostResult =
  | { status: 'posted'; transferId: number; balanceAfterMinor: number }
  /** The guard did not hold (balance moved, account closed): re-read and decide again. */
  | { status: 'guard_failed' }
  /** The transactionId is booked already (by a concurrent or earlier request). */
  | { status: 'duplicate' }
  /** The terminal is no longer what its authentication relied on: authenticate afresh. */
  | { status: 'terminal_changed' }
  /** A withdrawal from a profile's account that only live checkout reservations stand in the way of. */
  | { status: 'held_by_reservations' };

/**
 * The arguments of `post_transfer` for a planned posting, in its order; their names
 * (`POSTING_FIELDS`) are the columns a batch of single postings carries (transfer-write.store.ts).
 */
export const POSTING_FIELDS = [
  'merchant_id',
  'account_id',
  'delta_minor',
  'min_balance_minor',
  'max_balance_minor',
  'check_card',
  'card_id',
  'liability_id',
  'now',
  'currency',
  'transaction_id',
  'kind',
  'debit_id',
  'credit_id',
  'amount_minor',
  'token_id',
  'unit_id',
  'authorised_by',
  'authorisation_sha256',
  'check_unit',
  'dev_key_id',
  'checksum_secret',
  'require_v2',
  'require_transaction_id',
] as const;

export function postingArguments(
  plan: PlannedTransfer,
  meta: TransferMeta,
  card: CardFacts | null,
): (string | number | boolean | Date | null)[] {
  return [
    meta.merchantId,
    plan.customerAccountId,
    plan.customerDeltaMinor,
    plan.guardMinBalanceMinor,
    plan.guardMaxBalanceMinor,
    card !== null,
    card?.cardId ?? meta.cardId,
    card?.liabilityAccountId ?? null,
    new Date(meta.nowMs),
    meta.currency,
    meta.transactionId,
    plan.kind,
    plan.debitAccountId,
    plan.creditAccountId,
    plan.amountMinor,
    meta.tokenId,
    meta.trackingUnitId,
    meta.authorisation.by,
    meta.authorisation.sha256,
    meta.terminal !== null,
    meta.terminal?.devKeyId ?? null,
    meta.terminal?.checksumSecret ?? null,
    meta.terminal?.requireSecurityTokenV2 ?? null,
    meta.terminal?.requireTransactionId ?? null,
  ];
}

/** What `post_transfer` answered for one posting (no row, or a row without transfer id: the guard). */
export function postResultOf(
  row: { transfer_id: number | string | null; balance_after_minor: number | string | null } | undefined,
): PostResult {
  if (!row || row.transfer_id === null) return { status: 'guard_failed' };
  const id = Number(row.transfer_id);
  if (id === 0) return { status: 'terminal_changed' };
  if (id === -1) return { status: 'held_by_reservations' };
  return { status: 'posted', transferId: id, balanceAfterMinor: Number(row.balance_after_minor) };
}

export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}

const POST_TRANSFER = `SELECT transfer_id, balance_after_minor FROM post_transfer(${POSTING_FIELDS.map((_, i) => `$${i + 1}`).join(', ')})`;

/**
 * Books a planned top-up or withdrawal in one statement: the conditional UPDATE of the customer
 * account (the race-free check) and the INSERT of the transfer that reads its new balance.
 * A repeated transactionId violates the unique key, which undoes the whole statement. Single
 * requests outside a transaction go through the group commit of `TransferWriter`
 * (transfer-write.store.ts), which books each the same way.
 */
export async function postTransfer(
  db: Db,
  plan: PlannedTransfer,
  meta: TransferMeta,
  card: CardFacts | null = null,
): Promise<PostResult> {
  try {
    const result = await db.executeQuery<{ transfer_id: number; balance_after_minor: number }>(
      CompiledQuery.raw(POST_TRANSFER, postingArguments(plan, meta, card)),
    );
    return postResultOf(result.rows[0]);
  } catch (err) {
    if (isUniqueViolation(err)) return { status: 'duplicate' };
    throw err;
  }
}

/**
 * Moves a card account's whole balance to a profile account and closes the card account, inside
 * the caller's transaction (the card account row is locked by the caller). Besides
 * `post_transfers`, the one other writer of `ledger_transfers`: both accounts it names are updated
 * here, as the merchant's, before the transfer is written, so they exist and are of its merchant
 * (docs/decisions.md, "The ledger's references checked by its one writer").
 */
export async function postMerge(
  trx: Transaction<DB>,
  plan: PlannedTransfer,
  meta: TransferMeta,
): Promise<{ balanceAfterMinor: number }> {
  const debited = await trx
    .updateTable('ledger_accounts')
    .set((eb) => ({ balance_minor: eb('balance_minor', '-', plan.amountMinor) }))
    .where('id', '=', plan.debitAccountId)
    .where('merchant_id', '=', meta.merchantId)
    .where('balance_minor', '=', plan.amountMinor)
    .returning('id')
    .executeTakeFirst();
  if (!debited) throw new Error('card account changed during the merge');
  const credited = await trx
    .updateTable('ledger_accounts')
    .set((eb) => ({ balance_minor: eb('balance_minor', '+', plan.amountMinor) }))
    .where('id', '=', plan.creditAccountId)
    .where('merchant_id', '=', meta.merchantId)
    .returning('balance_minor')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('ledger_transfers')
    .values({
      merchant_id: meta.merchantId,
      transaction_id: meta.transactionId,
      kind: plan.kind,
      debit_account_id: plan.debitAccountId,
      credit_account_id: plan.creditAccountId,
      amount_minor: plan.amountMinor,
      currency: meta.currency,
      card_id: meta.cardId,
      token_id: meta.tokenId,
      balance_after_minor: credited.balance_minor,
      tracking_unit_id: meta.trackingUnitId,
      created_at: new Date(meta.nowMs),
      authorised_by: meta.authorisation.by,
      authorisation_sha256: meta.authorisation.sha256,
    })
    .execute();
  return { balanceAfterMinor: credited.balance_minor };
}

export interface StoredTransfer {
  readonly kind: TransferKind;
  readonly tokenId: string | null;
  readonly amountMinor: number;
  readonly currency: string;
  readonly balanceAfterMinor: number;
  readonly transactionId: string;
}

export async function findTransfer(
  db: Db,
  merchantId: number,
  transactionId: string,
): Promise<StoredTransfer | null> {
  const row = await db
    .selectFrom('ledger_transfers')
    .select(['kind', 'token_id', 'amount_minor', 'currency', 'balance_after_minor', 'transaction_id'])
    .where('merchant_id', '=', merchantId)
    .where('transaction_id', '=', transactionId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    kind: row.kind,
    tokenId: row.token_id,
    amountMinor: row.amount_minor,
    currency: row.currency.trim(),
    balanceAfterMinor: row.balance_after_minor,
    transactionId: row.transaction_id,
  };
}

/** A booking as the operator lists it, with what authorised it. */
export interface TransferListing {
  readonly transactionId: string;
  readonly kind: TransferKind;
  readonly amount: number;
  readonly currency: string;
  readonly tokenId: string | null;
  readonly trackingUnitId: string | null;
  readonly balanceAfter: number;
  readonly createdAt: string;
  readonly authorisedBy: TransferAuthorisation;
  readonly authorisationSha256: string | null;
}

/** A merchant's bookings, newest first, optionally of one card and a time range (amounts in minor units). */
export async function listTransfers(
  db: Db,
  merchantId: number,
  options: { tokenId?: string | undefined; range?: CreatedRange; page: PageRequest },
): Promise<(TransferListing & { id: number })[]> {
  let query = db
    .selectFrom('ledger_transfers')
    .select([
      'id',
      'transaction_id',
      'kind',
      'amount_minor',
      'currency',
      'token_id',
      'tracking_unit_id',
      'balance_after_minor',
      'created_at',
      'authorised_by',
      'authorisation_sha256',
    ])
    .where('merchant_id', '=', merchantId);
  if (options.tokenId !== undefined) query = query.where('token_id', '=', options.tokenId);
  const { range, page } = options;
  if (range?.fromMs !== undefined) query = query.where('created_at', '>=', new Date(range.fromMs));
  if (range?.toMs !== undefined) query = query.where('created_at', '<', new Date(range.toMs));
  // Paged by id, which only grows (docs/decisions.md, "Paging").
  if (page.after) query = query.where('id', '<', Number(page.after[0]));
  const rows = await query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    transactionId: r.transaction_id,
    kind: r.kind,
    amount: r.amount_minor,
    currency: r.currency.trim(),
    tokenId: r.token_id,
    trackingUnitId: r.tracking_unit_id,
    balanceAfter: r.balance_after_minor,
    createdAt: r.created_at.toISOString(),
    authorisedBy: r.authorised_by,
    authorisationSha256: r.authorisation_sha256,
  }));
}
