import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/db.js';
import type { DB } from '../store/schema.js';
import type { DashboardPeriod } from './dashboard-period.store.js';

/**
 * The dashboard's figures kept per local day (docs/decisions.md, "Dashboard figures kept per day";
 * migrations 0036, 0037): what a period's whole days add up to, in the shape of the figures the dashboard
 * reads from the baskets for the rest of a period. Outlet 0 is "no outlet", PLU '' "no PLU".
 */

/**
 * Adds the changes the triggers appended since the last fold (uploads, grants, returns, points,
 * uses) to the merchant's figures kept per day; answers how many it took. On the primary.
 */
export async function foldDashboardChanges(db: Kysely<DB>, merchantId: number): Promise<number> {
  const r = await sql<{ taken: number }>`SELECT dashboard_fold(${merchantId}) AS taken`.execute(db);
  return Number(r.rows[0]?.taken ?? 0);
}

/**
 * The embedded database runs no autovacuum: the changes a fold deletes stay in `dashboard_changes`
 * as dead rows, which every later fold reads through (after a year of a café's trade, 36 MB and
 * 0.1 to 0.3 s per view). Once this many changes were folded since the last vacuum, the table is
 * vacuumed (docs/decisions.md, "Dashboard figures kept per day"). PostgreSQL's autovacuum does this
 * by itself.
 */
export const VACUUM_AFTER_CHANGES = 5_000;

const foldedSinceVacuum = new WeakMap<Kysely<DB>, number>();

/**
 * Folds the merchant's changes (see `foldDashboardChanges`) on the primary and, on the embedded
 * database, vacuums the changes' table once enough were folded. Answers how many it took.
 */
export async function foldDashboard(
  database: Pick<Database, 'db' | 'kind'>,
  merchantId: number,
): Promise<number> {
  const taken = await foldDashboardChanges(database.db, merchantId);
  if (database.kind !== 'pglite' || taken === 0) return taken;
  const folded = (foldedSinceVacuum.get(database.db) ?? 0) + taken;
  if (folded < VACUUM_AFTER_CHANGES) {
    foldedSinceVacuum.set(database.db, folded);
    return taken;
  }
  await sql`VACUUM (ANALYZE) dashboard_changes`.execute(database.db);
  foldedSinceVacuum.set(database.db, 0);
  return taken;
}

export interface BasketDayRow {
  day: number;
  outlet_id: number;
  granted: string;
  open: string;
  sales: string;
  rewards: string;
  with_total: string;
  differs: string;
  differs_till: string;
  differs_sales: string;
}

export interface PointsDayRow {
  day: number;
  outlet_id: number | null;
  earned: string;
  redeemed: string;
}

export interface Days {
  from: string;
  to: string;
}

/** The kept figures of whole days, per day (days since 1970-01-01) and outlet. */
export async function keptDays(
  db: Kysely<DB>,
  p: DashboardPeriod,
  days: Days,
): Promise<{ baskets: BasketDayRow[]; points: PointsDayRow[] }> {
  const outlet = p.outletId === null ? sql`` : sql`AND outlet_id = ${p.outletId}`;
  const rows = await sql<BasketDayRow & PointsDayRow & { any_basket: boolean }>`
    SELECT (day - date '1970-01-01') AS day, outlet_id,
           sum(baskets) AS granted, sum(open_baskets) AS open, sum(sales_minor) AS sales,
           sum(rewards_minor) AS rewards, sum(with_total_value) AS with_total,
           sum(total_value_differs) AS differs, sum(differs_till_minor) AS differs_till,
           sum(differs_sales_minor) AS differs_sales, sum(points_earned) AS earned,
           sum(points_redeemed) AS redeemed,
           bool_or(baskets <> 0 OR open_baskets <> 0) AS any_basket
      FROM dashboard_hours
     WHERE merchant_id = ${p.merchantId} AND day >= ${days.from}::date AND day <= ${days.to}::date ${outlet}
     GROUP BY 1, 2`.execute(db);
  const baskets: BasketDayRow[] = [];
  const points: PointsDayRow[] = [];
  for (const r of rows.rows) {
    const outletId = Number(r.outlet_id);
    if (r.any_basket) baskets.push({ ...r, outlet_id: outletId });
    if (Number(r.earned) !== 0 || Number(r.redeemed) !== 0)
      points.push({ ...r, outlet_id: outletId === 0 ? null : outletId });
  }
  return { baskets, points };
}

/** The kept baskets and revenue (sales − rewards) of whole days per local hour. */
export async function keptHours(
  db: Kysely<DB>,
  p: DashboardPeriod,
  days: Days,
): Promise<{ hour: number; baskets: string; revenue: string }[]> {
  const outlet = p.outletId === null ? sql`` : sql`AND outlet_id = ${p.outletId}`;
  const rows = await sql<{ hour: number; baskets: string; revenue: string }>`
    SELECT hour, sum(baskets) AS baskets, sum(sales_minor - rewards_minor) AS revenue
      FROM dashboard_hours
     WHERE merchant_id = ${p.merchantId} AND day >= ${days.from}::date AND day <= ${days.to}::date ${outlet}
     GROUP BY 1`.execute(db);
  return rows.rows;
}
