import { type Kysely, type Transaction, sql } from 'kysely';
import { otpHash } from '../cards/profile.service.js';
import { ensureLiabilityAccount } from '../ledger/ledger.store.js';
import type { ProfileLimits } from '../ledger/rules/checkout-rules.js';
import { timeOrderedHex } from '../shared/random-id.js';
import type { DB } from '../store/schema.js';
import type { BalanceTransactionKind } from '../store/tables/checkout.js';

/**
 * The profile side of checkout v1: finding a profile by its reference, locking its balance for a
 * change, live reservations, month-to-date top-ups and the balance transactions with a status.
 */

type Db = Kysely<DB> | Transaction<DB>;

export interface ProfileRef {
  readonly profileId: number;
  /** Set when the reference was a one-time password: the order spends it. */
  readonly otpSha256: string | null;
}

/**
 * The profile a reference names: a customer card linked to it (registered, unexpired), or else a
 * live one-time password; the rule is `resolve_profile_reference` (sql/resolve_profile_reference.sql),
 * the order statements' own.
 */
export async function resolveProfileReference(
  db: Db,
  merchantId: number,
  reference: string,
  nowMs: number,
): Promise<ProfileRef | null> {
  const hash = otpHash(reference);
  const { rows } = await sql<{ profile_id: number; by_otp: boolean }>`
    SELECT profile_id, by_otp FROM resolve_profile_reference(
      ${merchantId}::bigint, ${reference}::text, ${hash}::text, ${new Date(nowMs).toISOString()}::timestamptz)`.execute(
    db,
  );
  const row = rows[0];
  if (!row) return null;
  return { profileId: Number(row.profile_id), otpSha256: row.by_otp ? hash : null };
}

export interface ProfileBalance {
  readonly profileId: number;
  readonly merchantId: number;
  readonly accountId: number;
  readonly currency: string;
  readonly balanceMinor: number;
  readonly limits: ProfileLimits;
  readonly fullName: string | null;
  readonly language: string | null;
  readonly partnerUserId: string | null;
}

/**
 * The profile with its balance. With `forUpdate`, the profile row and its account row are locked
 * to the end of the transaction: every checkout change of one profile's balance takes this lock
 * first, so concurrent orders, top-ups and reservations of one profile are decided one after the
 * other on figures that cannot move under them.
 */
export async function readProfileBalance(
  db: Db,
  merchantId: number,
  profileId: number,
  { forUpdate = false } = {},
): Promise<ProfileBalance | null> {
  let q = db
    .selectFrom('profiles as p')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .select([
      'p.id',
      'p.merchant_id',
      'p.account_id',
      'p.full_name',
      'p.language',
      'p.partner_user_id',
      'p.is_top_up_allowed',
      'p.is_charge_allowed',
      'p.max_amount_minor',
      'p.max_single_top_up_minor',
      'p.min_single_top_up_minor',
      'p.max_monthly_top_up_minor',
      'a.balance_minor',
      'a.currency',
    ])
    .where('p.merchant_id', '=', merchantId)
    .where('p.id', '=', profileId);
  // NO KEY UPDATE: it serialises the balance changes of one profile, while rows that merely refer
  // to the profile (orders, transactions) can still be inserted by others.
  if (forUpdate) q = q.forNoKeyUpdate();
  const r = await q.executeTakeFirst();
  if (!r) return null;
  return {
    profileId: r.id,
    merchantId: r.merchant_id,
    accountId: r.account_id,
    currency: r.currency.trim(),
    balanceMinor: Number(r.balance_minor),
    fullName: r.full_name,
    language: r.language,
    partnerUserId: r.partner_user_id,
    limits: {
      isTopUpAllowed: r.is_top_up_allowed,
      isChargeAllowed: r.is_charge_allowed,
      maxAmount: r.max_amount_minor === null ? null : Number(r.max_amount_minor),
      maxSingleTopUpAmount: r.max_single_top_up_minor === null ? null : Number(r.max_single_top_up_minor),
      minSingleTopUpAmount: r.min_single_top_up_minor === null ? null : Number(r.min_single_top_up_minor),
      maxMonthlyTopUpAmount: r.max_monthly_top_up_minor === null ? null : Number(r.max_monthly_top_up_minor),
    },
  };
}

/** What the profile's live reservations hold: active and not expired at `nowMs`. */
export async function liveReservedMinor(db: Db, profileId: number, nowMs: number): Promise<number> {
  const row = await db
    .selectFrom('checkout_reservations')
    .select(sql<string>`COALESCE(sum(remaining_minor), 0)::text`.as('held'))
    .where('profile_id', '=', profileId)
    .where('status', '=', 'active')
    .where('expires_at', '>', new Date(nowMs))
    .executeTakeFirstOrThrow();
  return Number(row.held);
}

/** Top-ups credited to the account since `sinceMs` (the start of the calendar month). */
export async function topUpsSince(db: Db, accountId: number, sinceMs: number): Promise<number> {
  const row = await db
    .selectFrom('ledger_transfers')
    .select(sql<string>`COALESCE(sum(amount_minor), 0)::text`.as('total'))
    .where('credit_account_id', '=', accountId)
    .where('kind', '=', 'top_up')
    .where('created_at', '>=', new Date(sinceMs))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** The merchant's liability account in a currency, remembered per app once known. */
export async function liabilityAccount(
  deps: { db: Kysely<DB>; liabilityAccounts: Map<string, number> },
  merchantId: number,
  currency: string,
): Promise<number> {
  const key = `${merchantId} ${currency}`;
  const known = deps.liabilityAccounts.get(key);
  if (known !== undefined) return known;
  const id = await ensureLiabilityAccount(deps.db, merchantId, currency);
  if (deps.liabilityAccounts.size > 10_000) deps.liabilityAccounts.clear();
  deps.liabilityAccounts.set(key, id);
  return id;
}

export interface TransactionRow {
  readonly id: string;
  readonly merchantId: number;
  readonly profileId: number;
  readonly kind: BalanceTransactionKind;
  readonly status: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly orderId: string | null;
  readonly reservationId: string | null;
}

export function newTransactionId(nowMs: number): string {
  return `btx_${timeOrderedHex(nowMs)}`;
}

export async function insertTransaction(trx: Db, t: TransactionRow, nowMs: number): Promise<void> {
  const now = new Date(nowMs);
  await trx
    .insertInto('balance_transactions')
    .values({
      merchant_id: t.merchantId,
      id: t.id,
      profile_id: t.profileId,
      kind: t.kind,
      status: t.status,
      amount_minor: t.amountMinor,
      currency: t.currency,
      order_id: t.orderId,
      reservation_id: t.reservationId,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/**
 * Writes the `transaction.status.changed` event of a change for every webhook of the merchant
 * (SQL function `checkout_status_changed`, src/orders/sql/checkout_status_changed.sql, the one
 * home of the event's payload: message id, sequence, the fields kept on the transaction, a
 * refund's refundableAmount); answers how many messages it wrote.
 */
export async function recordStatusChange(
  trx: Db,
  c: {
    merchantId: number;
    transactionId: string;
    kind: string;
    status: string;
    previousStatus: string | null;
    amountMinor: number;
    currency: string;
    profileReference: string | null;
    basketId: string | null;
    refundableMinor?: number;
  },
  nowMs: number,
): Promise<number> {
  const now = new Date(nowMs);
  const { rows } = await sql<{ written: number }>`SELECT checkout_status_changed(
    ${c.merchantId}::bigint, ${now.toISOString()}::timestamptz, ${now.toISOString()}::text,
    ${c.transactionId}::text, ${c.kind}::text, ${c.status}::text, ${c.previousStatus}::text,
    ${c.amountMinor}::bigint, ${c.currency}::text, ${c.profileReference}::text, ${c.basketId}::text,
    ${c.refundableMinor ?? null}::bigint
  ) AS written`.execute(trx);
  return Number(rows[0]?.written ?? 0);
}

/** Moves a transaction to a new status; answers the status it had, or null when it had that one. */
export async function setTransactionStatus(
  trx: Db,
  id: string,
  status: string,
  nowMs: number,
): Promise<(TransactionRow & { previousStatus: string }) | null> {
  const before = await trx
    .selectFrom('balance_transactions')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!before || before.status === status) return null;
  await trx
    .updateTable('balance_transactions')
    .set({ status, updated_at: new Date(nowMs) })
    .where('id', '=', id)
    .execute();
  return {
    id,
    merchantId: before.merchant_id,
    profileId: before.profile_id,
    kind: before.kind,
    status,
    previousStatus: before.status,
    amountMinor: Number(before.amount_minor),
    currency: before.currency.trim(),
    orderId: before.order_id,
    reservationId: before.reservation_id,
  };
}

export async function findTransactionOf(
  db: Db,
  by: { orderId?: string; reservationId?: string },
  kind: BalanceTransactionKind,
): Promise<string | null> {
  let q = db.selectFrom('balance_transactions').select('id').where('kind', '=', kind);
  if (by.orderId !== undefined) q = q.where('order_id', '=', by.orderId);
  if (by.reservationId !== undefined) q = q.where('reservation_id', '=', by.reservationId);
  const row = await q.executeTakeFirst();
  return row?.id ?? null;
}
