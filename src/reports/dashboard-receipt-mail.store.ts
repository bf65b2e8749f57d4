import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import {
  undeliveredReceiptBaskets,
  undeliveredReceiptOrders,
} from '../notifications/purchase-notification.store.js';
import { type DashboardPeriod, bounds } from './dashboard-period.store.js';
import { withoutJit } from './jit.store.js';

/** The period's baskets (or checkout orders) whose receipt mail did not arrive, by what became of it. */
export interface UndeliveredReceiptMails {
  /** Refused for good by the customer's mail server (an address it does not know). */
  refused: number;
  /** Every try failed (a full mailbox, a server that never took it). */
  givenUp: number;
}

/** The rows of `from` (an undelivered receipt `x` with its kind, and its conditions) counted by kind. */
async function countKinds(db: Kysely<DB>, from: RawBuilder<unknown>): Promise<UndeliveredReceiptMails> {
  const query = sql<{ refused: string | number; given_up: string | number }>`
    SELECT count(*) FILTER (WHERE x.kind = 'refused') AS refused,
           count(*) FILTER (WHERE x.kind = 'given_up') AS given_up
      ${from}`;
  const { rows } = await withoutJit(db, (trx) => query.execute(trx));
  return { refused: Number(rows[0]?.refused ?? 0), givenUp: Number(rows[0]?.given_up ?? 0) };
}

/**
 * The baskets of the period (by the basket's time, as the basket search's days take it) whose
 * receipt mail was refused or given up, as the basket search's `receiptMail` filter finds them
 * (docs/decisions.md, "Receipt mails not delivered, on the dashboard"): read from the few
 * notifications not delivered and the baskets found by key, not from the period's baskets.
 */
export async function undeliveredReceiptMails(
  db: Kysely<DB>,
  p: DashboardPeriod,
): Promise<UndeliveredReceiptMails> {
  const { start, end } = bounds(p);
  const outlet = p.outletId === null ? sql`` : sql`AND b.outlet_id = ${p.outletId}`;
  return countKinds(
    db,
    sql`FROM (${undeliveredReceiptBaskets(p.merchantId)}) x
      JOIN baskets b ON b.tracking_unit_id = x.tracking_unit_id AND b.basket_id = x.basket_id
     WHERE b.merchant_id = ${p.merchantId} AND b.timestamp_utc >= ${start} AND b.timestamp_utc < ${end} ${outlet}`,
  );
}

/**
 * The checkout orders placed in the period whose receipt mail was refused or given up, as the order
 * search's `receiptMail` filter finds them (docs/decisions.md, "Checkout orders' receipt mails not
 * delivered, on the dashboard"): from the few notifications not delivered, the orders found by id.
 * Orders have no outlet: the merchant's.
 */
export async function undeliveredOrderReceiptMails(
  db: Kysely<DB>,
  p: DashboardPeriod,
): Promise<UndeliveredReceiptMails> {
  const { start, end } = bounds(p);
  return countKinds(
    db,
    sql`FROM (${undeliveredReceiptOrders(p.merchantId)}) x
      JOIN checkout_orders o ON o.id = x.order_id
     WHERE o.merchant_id = ${p.merchantId} AND o.created_at >= ${start} AND o.created_at < ${end}`,
  );
}
