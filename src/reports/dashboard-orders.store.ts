import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { type DashboardPeriod, bounds } from './dashboard-period.store.js';

/**
 * The checkout orders on the dashboard (docs/decisions.md, "Checkout orders on the dashboard"):
 * per shop (checkout client), the orders placed in the period (by the time they were placed) and
 * the refunds made in it (by the time of the refund, as the tills' returns), read by merchant and
 * time (migrations 0061, 0062).
 */

export interface OrderFigures {
  /** Orders placed. */
  orders: number;
  /** Their totals as priced (after the campaigns' discounts). */
  orderedMinor: number;
  /** Of it, paid from the customers' balances. */
  chargedMinor: number;
  /** Refunds made (of orders placed in any period). */
  refunds: number;
  /** What they gave back to the balances. */
  refundedMinor: number;
  /** orderedMinor − refundedMinor. */
  netMinor: number;
}

export interface ShopOrderFigures extends OrderFigures {
  clientId: number;
  /** The checkout client's name: the shop, app or kiosk. */
  shop: string;
  /** When its access was revoked; such a shop is listed only for the figures of its past. */
  revoked: boolean;
}

export function noOrders(): OrderFigures {
  return { orders: 0, orderedMinor: 0, chargedMinor: 0, refunds: 0, refundedMinor: 0, netMinor: 0 };
}

type Row = {
  client_id: string | number;
  orders: string | number;
  ordered: string | number;
  charged: string | number;
  refunds: string | number;
  refunded: string | number;
};

/** The period's figures per checkout client that placed or refunded an order in it. */
async function figuresByClient(db: Kysely<DB>, p: DashboardPeriod): Promise<Map<number, OrderFigures>> {
  const { start, end } = bounds(p);
  const { rows } = await sql<Row>`
    SELECT client_id, sum(orders) AS orders, sum(ordered) AS ordered, sum(charged) AS charged,
           sum(refunds) AS refunds, sum(refunded) AS refunded
      FROM (SELECT o.client_id, count(*) AS orders, sum(o.total_gross_minor) AS ordered,
                   sum(o.charged_minor) AS charged, 0 AS refunds, 0 AS refunded
              FROM checkout_orders o
             WHERE o.merchant_id = ${p.merchantId} AND o.created_at >= ${start} AND o.created_at < ${end}
             GROUP BY o.client_id
            UNION ALL
            SELECT o.client_id, 0, 0, 0, count(*), sum(r.amount_minor)
              FROM checkout_refunds r
              JOIN checkout_orders o ON o.id = r.order_id
             WHERE r.merchant_id = ${p.merchantId} AND r.created_at >= ${start} AND r.created_at < ${end}
             GROUP BY o.client_id) x
     GROUP BY client_id`.execute(db);
  const byClient = new Map<number, OrderFigures>();
  for (const r of rows) {
    const ordered = Number(r.ordered);
    const refunded = Number(r.refunded);
    byClient.set(Number(r.client_id), {
      orders: Number(r.orders),
      orderedMinor: ordered,
      chargedMinor: Number(r.charged),
      refunds: Number(r.refunds),
      refundedMinor: refunded,
      netMinor: ordered - refunded,
    });
  }
  return byClient;
}

/** The merchant's checkout clients: every one not revoked, and the revoked ones with figures. */
async function shops(db: Kysely<DB>, merchantId: number) {
  return db
    .selectFrom('checkout_clients')
    .select(['id', 'name', 'revoked_at'])
    .where('merchant_id', '=', merchantId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** The sum of the shops' figures. */
export function sumOrders(rows: readonly OrderFigures[]): OrderFigures {
  const sum = noOrders();
  for (const r of rows) {
    sum.orders += r.orders;
    sum.orderedMinor += r.orderedMinor;
    sum.chargedMinor += r.chargedMinor;
    sum.refunds += r.refunds;
    sum.refundedMinor += r.refundedMinor;
    sum.netMinor += r.netMinor;
  }
  return sum;
}

/**
 * The period's and the previous period's order figures, and the period's per shop: every shop the
 * merchant has (a quiet one with zeros), a revoked one while it has figures in the period.
 */
export async function dashboardOrders(
  db: Kysely<DB>,
  current: DashboardPeriod,
  previous: DashboardPeriod,
): Promise<{ totals: OrderFigures; previous: OrderFigures; byShop: ShopOrderFigures[] }> {
  const [now, before, clients] = await Promise.all([
    figuresByClient(db, current),
    figuresByClient(db, previous),
    shops(db, current.merchantId),
  ]);
  const byShop = clients
    .filter((c) => c.revoked_at === null || now.has(Number(c.id)))
    .map((c) => ({
      clientId: Number(c.id),
      shop: c.name,
      revoked: c.revoked_at !== null,
      ...(now.get(Number(c.id)) ?? noOrders()),
    }));
  return { totals: sumOrders([...now.values()]), previous: sumOrders([...before.values()]), byShop };
}
