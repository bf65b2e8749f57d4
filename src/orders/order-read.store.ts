import { type Kysely, type Transaction, sql } from 'kysely';
import type { CreatedRange, PageRequest } from '../shared/paging.js';
import type { DB } from '../store/schema.js';
import type { OrderStatus } from '../store/tables/checkout.js';
import type { StoredOrder } from './order.store.js';

/**
 * Orders and their refunds read back, and the rows a refund writes (docs/decisions.md, "Reading
 * back, lists and partial refunds"). Lists are newest first, paged by (created_at, id).
 */

type Db = Kysely<DB> | Transaction<DB>;

/** A position a refund took back: how much of it and for what amount (minor units). */
export interface RefundedPosition {
  readonly positionId: number;
  readonly quantity: number;
  readonly amountMinor: number;
}

declare module '../store/schema.js' {
  interface JsonShapes {
    'checkout_refunds.positions': RefundedPosition[];
  }
}

export interface OrderRecord {
  readonly id: string;
  readonly basketId: string;
  readonly profileId: number;
  readonly status: OrderStatus;
  /** As read back: completed, partially_refunded or refunded (`order_state`). */
  readonly state: OrderState;
  readonly currency: string;
  readonly totalGrossMinor: number;
  readonly chargedMinor: number;
  readonly refundedMinor: number;
  readonly receiptId: string | null;
  readonly priced: StoredOrder;
  readonly createdAt: Date;
}

/** A refund made in the portal: who, why, and the request it answers. */
export interface PortalRefundOrigin {
  readonly portalUserId: number;
  readonly reason: string | null;
  /** The request's own id, unique in the merchant. */
  readonly requestId: string;
  /** What it asked for, minor units; null: all that was refundable. */
  readonly askedMinor: number | null;
}

export interface RefundRecord {
  readonly id: string;
  readonly orderId: string;
  /** 1, 2, ... within the order. */
  readonly seq: number;
  readonly amountMinor: number;
  readonly positions: RefundedPosition[];
  readonly transactionId: string | null;
  readonly createdAt: Date;
  /** Made in the portal; null: by the shop through the checkout interface. */
  readonly portal: PortalRefundOrigin | null;
}

/** A checkout order's state as it is read back, listed and filtered (the stored function `order_state`). */
export type OrderState = 'completed' | 'partially_refunded' | 'refunded';

/** The order's state by the one rule (src/orders/sql/order_state.sql), for a select or a filter. */
export function orderStateOf(alias: string | null = null) {
  return alias === null
    ? sql<OrderState>`order_state(status, refunded_minor)`
    : sql<OrderState>`order_state(${sql.ref(`${alias}.status`)}, ${sql.ref(`${alias}.refunded_minor`)})`;
}

const ORDER_COLUMNS = [
  'id',
  'basket_id',
  'profile_id',
  'status',
  orderStateOf().as('state'),
  'currency',
  'total_gross_minor',
  'charged_minor',
  'refunded_minor',
  'receipt_id',
  'priced',
  'created_at',
] as const;

interface OrderDbRow {
  id: string;
  basket_id: string;
  profile_id: number;
  status: OrderStatus;
  state: OrderState;
  currency: string;
  total_gross_minor: number;
  charged_minor: number;
  refunded_minor: number;
  receipt_id: string | null;
  priced: StoredOrder;
  created_at: Date;
}

function orderRecord(r: OrderDbRow): OrderRecord {
  return {
    id: r.id,
    basketId: r.basket_id,
    profileId: Number(r.profile_id),
    status: r.status,
    state: r.state,
    currency: r.currency.trim(),
    totalGrossMinor: Number(r.total_gross_minor),
    chargedMinor: Number(r.charged_minor),
    refundedMinor: Number(r.refunded_minor),
    receiptId: r.receipt_id,
    priced: r.priced,
    createdAt: r.created_at,
  };
}

/** The merchant's order under a basketId; with `forUpdate` its row is locked (refunds queue on it). */
export async function readOrderRecord(
  db: Db,
  merchantId: number,
  basketId: string,
  { forUpdate = false } = {},
): Promise<OrderRecord | null> {
  let q = db
    .selectFrom('checkout_orders')
    .select(ORDER_COLUMNS)
    .where('merchant_id', '=', merchantId)
    .where('basket_id', '=', basketId);
  if (forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? orderRecord(r) : null;
}

/** A page of a profile's orders, newest first, created in the range. */
export async function listOrderRecords(
  db: Db,
  merchantId: number,
  profileId: number,
  range: CreatedRange,
  page: PageRequest,
): Promise<OrderRecord[]> {
  let q = db
    .selectFrom('checkout_orders')
    .select(ORDER_COLUMNS)
    .where('merchant_id', '=', merchantId)
    .where('profile_id', '=', profileId);
  if (range.fromMs !== undefined) q = q.where('created_at', '>=', new Date(range.fromMs));
  if (range.toMs !== undefined) q = q.where('created_at', '<', new Date(range.toMs));
  const after = page.after;
  if (after) {
    const at = new Date(Number(after[0]));
    const id = String(after[1]);
    q = q.where((eb) =>
      eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', id)])]),
    );
  }
  const rows = await q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return rows.map(orderRecord);
}

const REFUND_COLUMNS = [
  'id',
  'order_id',
  'seq',
  'amount_minor',
  'positions',
  'transaction_id',
  'created_at',
  'portal_user_id',
  'reason',
  'request_id',
  'asked_minor',
] as const;

function refundRecord(r: {
  id: string;
  order_id: string;
  seq: number;
  amount_minor: number;
  positions: RefundedPosition[];
  transaction_id: string | null;
  created_at: Date;
  portal_user_id: number | null;
  reason: string | null;
  request_id: string | null;
  asked_minor: number | null;
}): RefundRecord {
  return {
    id: r.id,
    orderId: r.order_id,
    seq: r.seq,
    amountMinor: Number(r.amount_minor),
    positions: r.positions,
    transactionId: r.transaction_id,
    createdAt: r.created_at,
    portal:
      r.portal_user_id === null || r.request_id === null
        ? null
        : {
            portalUserId: Number(r.portal_user_id),
            reason: r.reason,
            requestId: r.request_id,
            askedMinor: r.asked_minor === null ? null : Number(r.asked_minor),
          },
  };
}

/** The merchant's refund made for a portal request, whichever order it refunded; null if none. */
export async function refundOfRequest(
  db: Db,
  merchantId: number,
  requestId: string,
): Promise<RefundRecord | null> {
  const r = await db
    .selectFrom('checkout_refunds')
    .select(REFUND_COLUMNS)
    .where('merchant_id', '=', merchantId)
    .where('request_id', '=', requestId)
    .executeTakeFirst();
  return r ? refundRecord(r) : null;
}

/** The refunds of the orders, oldest first, by order id. */
export async function refundsOf(db: Db, orderIds: readonly string[]): Promise<Map<string, RefundRecord[]>> {
  const out = new Map<string, RefundRecord[]>();
  if (orderIds.length === 0) return out;
  const rows = await db
    .selectFrom('checkout_refunds')
    .select(REFUND_COLUMNS)
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('seq')
    .execute();
  for (const r of rows) {
    const list = out.get(r.order_id) ?? [];
    list.push(refundRecord(r));
    out.set(r.order_id, list);
  }
  return out;
}

/** What each order's charge moved: the amount and the balance right after (its ledger transfer). */
export async function chargesOf(
  db: Db,
  merchantId: number,
  orderIds: readonly string[],
): Promise<Map<string, { amountMinor: number; balanceAfterMinor: number }>> {
  const out = new Map<string, { amountMinor: number; balanceAfterMinor: number }>();
  if (orderIds.length === 0) return out;
  const rows = await db
    .selectFrom('ledger_transfers')
    .select(['transaction_id', 'amount_minor', 'balance_after_minor'])
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', 'charge')
    .where(
      'transaction_id',
      'in',
      orderIds.map((id) => `charge:${id}`),
    )
    .execute();
  for (const r of rows) {
    out.set(r.transaction_id.slice('charge:'.length), {
      amountMinor: Number(r.amount_minor),
      balanceAfterMinor: Number(r.balance_after_minor),
    });
  }
  return out;
}

/**
 * Writes a refund; false when a portal request's id was taken meanwhile by a refund of another
 * order (the unique index on the merchant and the request id), and nothing is written.
 */
export async function insertRefund(trx: Db, merchantId: number, r: RefundRecord): Promise<boolean> {
  const written = await trx
    .insertInto('checkout_refunds')
    .values({
      merchant_id: merchantId,
      id: r.id,
      order_id: r.orderId,
      seq: r.seq,
      amount_minor: r.amountMinor,
      positions: JSON.stringify(r.positions),
      transaction_id: r.transactionId,
      created_at: r.createdAt,
      portal_user_id: r.portal?.portalUserId ?? null,
      reason: r.portal?.reason ?? null,
      request_id: r.portal?.requestId ?? null,
      asked_minor: r.portal?.askedMinor ?? null,
    })
    .onConflict((oc) =>
      oc.columns(['merchant_id', 'request_id']).where('request_id', 'is not', null).doNothing(),
    )
    .executeTakeFirst();
  return Number(written.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** The sum the order's refunds gave back; `whole` marks the order refunded. */
export async function setOrderRefunded(
  trx: Db,
  orderId: string,
  refundedMinor: number,
  whole: boolean,
  nowMs: number,
): Promise<void> {
  await trx
    .updateTable('checkout_orders')
    .set(
      whole
        ? { refunded_minor: refundedMinor, status: 'refunded', refunded_at: new Date(nowMs) }
        : { refunded_minor: refundedMinor },
    )
    .where('id', '=', orderId)
    .execute();
}
