import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { OrderStatus, ReservationStatus } from '../store/tables/checkout.js';
import type { MenuFacts, PricedOrder } from './order-model.js';
import type { AnswerHead } from './order-answer.js';

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

/** Inserts the order; false when the merchant has an order under this basketId already. */
export async function insertOrder(trx: Db, o: OrderRow): Promise<boolean> {
  const row = await trx
    .insertInto('checkout_orders')
    .values({
      merchant_id: o.merchantId,
      id: o.id,
      client_id: o.clientId,
      basket_id: o.basketId,
      profile_id: o.profileId,
      status: o.status,
      currency: o.currency,
      total_gross_minor: o.totalGrossMinor,
      charged_minor: o.chargedMinor,
      receipt_id: o.receiptId,
      priced: JSON.stringify(o.priced),
      created_at: o.createdAt,
    })
    .onConflict((oc) => oc.columns(['merchant_id', 'basket_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
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
