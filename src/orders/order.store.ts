import { type Kysely, type Transaction, sql } from 'kysely';
import { timeOrderedHex } from '../shared/random-id.js';
import type { DB } from '../store/schema.js';
import type { OrderStatus, ReservationStatus } from '../store/tables/checkout.js';
import type { MenuFacts, OrderBookingFacts, PricedOrder } from './order-model.js';
import type { AnswerHead } from './order-answer.js';

/** A new order's id: `ord_` and a UUID of version 7 in 32 hex digits (docs/decisions.md, "Ids that grow with time"). */
export function newOrderId(nowMs: number): string {
  return `ord_${timeOrderedHex(nowMs)}`;
}

/** What an order keeps of its pricing: the answer's head and the priced positions. */
export interface StoredOrder {
  readonly head: AnswerHead;
  readonly priced: PricedOrder;
}

declare module '../store/schema.js' {
  interface JsonShapes {
    'checkout_orders.priced': StoredOrder;
  }
}

/** Orders and reservations of checkout v1: their rows. */

type Db = Kysely<DB> | Transaction<DB>;

export interface OrderRow {
  readonly id: string;
  readonly merchantId: number;
  readonly clientId: number;
  readonly basketId: string;
  readonly profileId: number;
  readonly status: OrderStatus;
  readonly currency: string;
  readonly totalGrossMinor: number;
  readonly chargedMinor: number;
  readonly receiptId: string | null;
  readonly priced: StoredOrder;
  readonly createdAt: Date;
  /** When the charge was given back (status `refunded`); read only. */
  readonly refundedAt?: Date | null;
}

/** One order for `book_order` (sql/book_order.sql, a batch of one of sql/book_orders.sql): its profile known, priced, with its ids. */
export interface OrderBooking extends OrderBookingFacts {
  readonly merchantId: number;
  readonly clientId: number;
  readonly nowMs: number;
  readonly profileId: number;
  /** SHA-256 of the reference when it is a one-time password the order spends; null for a card. */
  readonly otpSha256: string | null;
  readonly profileReference: string;
  readonly priced: StoredOrder;
}

/** What `book_order` answers: the refusal's error name, or the answer's text and the events written. */
export type OrderBooked =
  | { readonly refusal: string; readonly answer?: undefined; readonly events: 0 }
  | { readonly refusal: null; readonly answer: string; readonly events: number };

/**
 * Books the order in the caller's transaction by the order statements' own booking (`book_order`):
 * the profile's lock, the order row, the charge plan and posting, the balance transaction, the
 * reservation's use, the receipt, the spent one-time password and the status events.
 */
export async function bookOrder(trx: Db, b: OrderBooking): Promise<OrderBooked> {
  const now = new Date(b.nowMs).toISOString();
  const { rows } = await sql<{ refusal: string | null; answer_text: string | null; event_count: number }>`
    SELECT refusal, answer_text, event_count FROM book_order(
      ${b.merchantId}::bigint, ${b.clientId}::bigint, ${now}::timestamptz, ${now}::text,
      ${b.profileId}::bigint, ${b.otpSha256 !== null}::boolean, ${b.otpSha256}::text,
      ${b.profileReference}::text, ${b.orderId}::text, ${b.basketId}::text, ${b.receiptId}::text,
      ${b.currency}::text, ${b.totalGrossMinor}::bigint, ${b.charge}::boolean,
      ${JSON.stringify(b.priced)}::json, ${b.liabilityAccountId}::bigint, ${b.transactionId}::text,
      ${b.reservation?.reference ?? null}::text, ${b.reservation?.cancelRemainingAmount === true}::boolean,
      ${b.answerHead}::text, ${JSON.stringify(b.currency)}::text)`.execute(trx);
  const row = rows[0];
  if (row?.refusal) return { refusal: row.refusal, events: 0 };
  if (!row?.answer_text) throw new Error('book_order answered neither a refusal nor an answer');
  return { refusal: null, answer: row.answer_text, events: Number(row.event_count) };
}

export async function findOrder(
  db: Db,
  merchantId: number,
  by: { basketId: string } | { id: string },
  { forUpdate = false } = {},
): Promise<OrderRow | null> {
  let q = db.selectFrom('checkout_orders').selectAll().where('merchant_id', '=', merchantId);
  q = 'basketId' in by ? q.where('basket_id', '=', by.basketId) : q.where('id', '=', by.id);
  if (forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  if (!r) return null;
  return {
    id: r.id,
    merchantId: r.merchant_id,
    clientId: r.client_id,
    basketId: r.basket_id,
    profileId: r.profile_id,
    status: r.status,
    currency: r.currency.trim(),
    totalGrossMinor: Number(r.total_gross_minor),
    chargedMinor: Number(r.charged_minor),
    receiptId: r.receipt_id,
    priced: r.priced,
    createdAt: r.created_at,
    refundedAt: r.refunded_at,
  };
}

export interface ReservationRow {
  readonly id: string;
  readonly merchantId: number;
  readonly profileId: number;
  readonly currency: string;
  readonly amountMinor: number;
  readonly remainingMinor: number;
  readonly status: ReservationStatus;
  readonly expiresAt: Date;
}

export async function insertReservation(trx: Db, r: ReservationRow, nowMs: number): Promise<void> {
  await trx
    .insertInto('checkout_reservations')
    .values({
      merchant_id: r.merchantId,
      id: r.id,
      profile_id: r.profileId,
      currency: r.currency,
      amount_minor: r.amountMinor,
      remaining_minor: r.remainingMinor,
      status: r.status,
      expires_at: r.expiresAt,
      created_at: new Date(nowMs),
      updated_at: new Date(nowMs),
    })
    .execute();
}

export async function findReservation(
  db: Db,
  merchantId: number,
  id: string,
  { forUpdate = false } = {},
): Promise<ReservationRow | null> {
  let q = db
    .selectFrom('checkout_reservations')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  if (!r) return null;
  return {
    id: r.id,
    merchantId: r.merchant_id,
    profileId: r.profile_id,
    currency: r.currency.trim(),
    amountMinor: Number(r.amount_minor),
    remainingMinor: Number(r.remaining_minor),
    status: r.status,
    expiresAt: r.expires_at,
  };
}

export async function updateReservation(
  trx: Db,
  id: string,
  change: { remainingMinor: number; status: ReservationStatus },
  nowMs: number,
): Promise<void> {
  await trx
    .updateTable('checkout_reservations')
    .set({ remaining_minor: change.remainingMinor, status: change.status, updated_at: new Date(nowMs) })
    .where('id', '=', id)
    .execute();
}

/** The facts an order's pricing relies on (menu-cache.ts): the menu's version and generation, the rules version. */
export async function readMenuFacts(
  db: Kysely<DB>,
  merchantId: number,
  menuId: number,
): Promise<MenuFacts | null> {
  const row = await db
    .selectFrom('sortiments as s')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .select(['s.id', 's.version', 's.current_gen', 'm.rules_version'])
    .where('s.merchant_id', '=', merchantId)
    .where('s.id', '=', menuId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    sortimentId: row.id,
    version: row.version,
    currentGen: row.current_gen,
    rulesVersion: row.rules_version,
  };
}

/** The merchant's display name, the consumer's language and the shop (checkout client), for an order's receipt. */
export async function orderReceiptHead(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  clientId: number,
): Promise<
  | {
      display_name: string;
      time_zone: string;
      language: string | null;
      shop: string | null;
      legal_name: string | null;
      legal_address: string | null;
      tax_number: string | null;
    }
  | undefined
> {
  return db
    .selectFrom('merchants as m')
    .innerJoin('profiles as p', 'p.merchant_id', 'm.id')
    .leftJoin('checkout_clients as c', (j) => j.onRef('c.merchant_id', '=', 'm.id').on('c.id', '=', clientId))
    .select([
      'm.display_name',
      'm.time_zone',
      'p.language',
      'c.name as shop',
      'm.legal_name',
      'm.legal_address',
      'm.tax_number',
    ])
    .where('m.id', '=', merchantId)
    .where('p.id', '=', profileId)
    .executeTakeFirst();
}
