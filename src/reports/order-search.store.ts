import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { type OrderState, orderStateOf } from '../orders/order-read.store.js';
import { type ReceiptMailFilter, orderReceiptMailIs } from '../notifications/purchase-notification.store.js';

/**
 * The checkout orders of one merchant for the portal (docs/decisions.md, "Finding checkout
 * orders"): newest first by the time the order was placed, ties by its id (both descending), and
 * paged by that key; read through the index on the merchant and the time (migration 0061). A
 * foreign order is not found.
 */

export interface OrderFilter {
  merchantId: number;
  fromMs: number | null;
  toMs: number | null;
  /** The order's id, or the shop's basketId, exactly as sent. */
  number: string | null;
  /** Only the orders of this checkout client (the shop or app). */
  clientId: number | null;
  /** Only the orders of this customer profile. */
  profileId: number | null;
  state: OrderState | null;
  /** Only the orders whose receipt mail became this (docs/decisions.md, "What became of the receipt mail"). */
  receiptMail: ReceiptMailFilter | null;
  limit: number;
  /** The key of the last order of the previous page: its time (ms) and id. */
  after: readonly [number, string] | null;
}

export interface OrderListing {
  orderId: string;
  /** The shop's own key of the order (`basketId` of the checkout interface). */
  basketId: string;
  clientId: number;
  /** The checkout client's name: the shop or app it was placed in. */
  shop: string | null;
  profileId: number;
  customerName: string | null;
  createdAt: string;
  currency: string;
  totalGrossMinor: number;
  /** Paid from the customer's balance. */
  chargedMinor: number;
  /** Given back to the balance by refunds so far. */
  refundedMinor: number;
  state: OrderState;
  receiptId: string | null;
}

/** The merchant's orders the filter finds (every condition but the page's), as a query to add to. */
function filtered(db: Kysely<DB>, f: Omit<OrderFilter, 'limit' | 'after'>) {
  let q = db.selectFrom('checkout_orders as o').where('o.merchant_id', '=', f.merchantId);
  if (f.fromMs !== null) q = q.where('o.created_at', '>=', new Date(f.fromMs));
  if (f.toMs !== null) q = q.where('o.created_at', '<', new Date(f.toMs));
  const number = f.number;
  if (number !== null) q = q.where((eb) => eb.or([eb('o.id', '=', number), eb('o.basket_id', '=', number)]));
  if (f.clientId !== null) q = q.where('o.client_id', '=', f.clientId);
  if (f.profileId !== null) q = q.where('o.profile_id', '=', f.profileId);
  // The state as the checkout interface reads it back: the one rule, `order_state`.
  if (f.state !== null) q = q.where(orderStateOf('o'), '=', f.state);
  if (f.receiptMail !== null) q = q.where(orderReceiptMailIs('o', f.merchantId, f.receiptMail));
  return q;
}

export interface OrderTotals {
  orders: number;
  totalGrossMinor: number;
  chargedMinor: number;
  refundedMinor: number;
}

/** What every order the filter finds adds up to, whatever the page (docs/decisions.md, "Finding checkout orders"). */
export async function orderTotals(
  db: Kysely<DB>,
  f: Omit<OrderFilter, 'limit' | 'after'>,
): Promise<OrderTotals> {
  const r = await filtered(db, f)
    .select((eb) => [
      eb.fn.countAll<string>().as('orders'),
      eb.fn.coalesce(eb.fn.sum<string>('o.total_gross_minor'), sql<string>`0`).as('total'),
      eb.fn.coalesce(eb.fn.sum<string>('o.charged_minor'), sql<string>`0`).as('charged'),
      eb.fn.coalesce(eb.fn.sum<string>('o.refunded_minor'), sql<string>`0`).as('refunded'),
    ])
    .executeTakeFirstOrThrow();
  return {
    orders: Number(r.orders),
    totalGrossMinor: Number(r.total),
    chargedMinor: Number(r.charged),
    refundedMinor: Number(r.refunded),
  };
}

/** The orders of a page, `limit + 1` of them at most (the one more tells that more follow). */
export async function searchOrders(db: Kysely<DB>, f: OrderFilter): Promise<OrderListing[]> {
  let q = filtered(db, f)
    .leftJoin('checkout_clients as c', (j) =>
      j.onRef('c.merchant_id', '=', 'o.merchant_id').onRef('c.id', '=', 'o.client_id'),
    )
    .leftJoin('profiles as p', (j) =>
      j.onRef('p.merchant_id', '=', 'o.merchant_id').onRef('p.id', '=', 'o.profile_id'),
    )
    .select([
      'o.id',
      'o.basket_id',
      'o.client_id',
      'c.name as shop',
      'o.profile_id',
      'p.full_name',
      'o.created_at',
      'o.currency',
      'o.total_gross_minor',
      'o.charged_minor',
      'o.refunded_minor',
      'o.receipt_id',
      orderStateOf('o').as('state'),
    ]);
  const after = f.after;
  if (after !== null) q = q.where(sql<boolean>`(o.created_at, o.id) < (${new Date(after[0])}, ${after[1]})`);
  const rows = await q
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(f.limit + 1)
    .execute();
  return rows.map((o) => {
    const refunded = Number(o.refunded_minor);
    return {
      orderId: o.id,
      basketId: o.basket_id,
      clientId: Number(o.client_id),
      shop: o.shop,
      profileId: Number(o.profile_id),
      customerName: o.full_name,
      createdAt: o.created_at.toISOString(),
      currency: o.currency.trim(),
      totalGrossMinor: Number(o.total_gross_minor),
      chargedMinor: Number(o.charged_minor),
      refundedMinor: refunded,
      state: o.state,
      receiptId: o.receipt_id,
    };
  });
}
