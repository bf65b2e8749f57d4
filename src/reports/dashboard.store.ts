import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { type BasketDayRow, type PointsDayRow, keptDays, keptHours } from './dashboard-days.store.js';
import {
  type DashboardPeriod,
  bounds,
  dayNumber,
  dayText,
  hourOfDay,
  splitPeriod,
} from './dashboard-period.store.js';
import { returnFigures } from './dashboard-returns.store.js';

/**
 * The portal's dashboard (docs/decisions.md, "Dashboard figures"): per local day of the merchant's
 * time zone and outlet, the granted baskets and their sales from their positions, the rewards the
 * grants booked, the returns, the revenue left, points; the open baskets apart. Every query reads
 * one merchant's rows by time through an index made for it (migrations 0014, 0030); the sales and
 * rewards are generated columns of the grant, so no JSON is read for the daily figures.
 */

export type { DashboardPeriod } from './dashboard-period.store.js';

export interface DashboardFigures {
  /** Granted baskets (by the basket's time). */
  baskets: number;
  /** Uploaded, not granted: not in any other figure. */
  openBaskets: number;
  /** Line gross of the granted baskets' positions. */
  salesMinor: number;
  /** Reward value the grants booked (redeemed at the till). */
  rewardsMinor: number;
  /** Returns booked (by the return's time). */
  returns: number;
  /** What the returns gave back: returned line gross less the rewards they refunded. */
  returnsMinor: number;
  /** sales − rewards − returns. */
  revenueMinor: number;
  pointsEarned: number;
  pointsRedeemed: number;
  /** Granted baskets whose till sent `TotalValue`, and of them those where it is not the positions' sum. */
  withTotalValue: number;
  totalValueDiffers: number;
}

export interface DashboardDay extends DashboardFigures {
  day: string;
  outletId: number | null;
}

export interface DashboardTotals extends DashboardFigures {
  /** (sales − rewards) / granted baskets, rounded half up; 0 without baskets. */
  averageTicketMinor: number;
  /** Of the baskets whose TotalValue differs: the till's TotalValue and the positions' sum. */
  totalValueDiffersTillMinor: number;
  totalValueDiffersSalesMinor: number;
}

export interface DashboardHour {
  hour: number;
  baskets: number;
  /** sales − rewards of the granted baskets of that hour. */
  revenueMinor: number;
}

/** Every figure at 0. */
export function zero(): DashboardFigures {
  return {
    baskets: 0,
    openBaskets: 0,
    salesMinor: 0,
    rewardsMinor: 0,
    returns: 0,
    returnsMinor: 0,
    revenueMinor: 0,
    pointsEarned: 0,
    pointsRedeemed: 0,
    withTotalValue: 0,
    totalValueDiffers: 0,
  };
}

export const FIGURES = Object.keys(zero()) as (keyof DashboardFigures)[];

/** The granted and open baskets and the points of part of a period, read from their rows. */
async function scannedDays(
  db: Kysely<DB>,
  p: DashboardPeriod,
): Promise<{ baskets: BasketDayRow[]; points: PointsDayRow[] }> {
  const { start, end } = bounds(p);
  const outlet = p.outletId === null ? sql`` : sql`AND outlet_id = ${p.outletId}`;
  const tuOutlet = p.outletId === null ? sql`` : sql`AND tu.outlet_id = ${p.outletId}`;
  const [baskets, points] = await Promise.all([
    sql<BasketDayRow>`
      SELECT ${dayNumber('timestamp_utc', p)} AS day, outlet_id,
             count(*) FILTER (WHERE granted_at IS NOT NULL) AS granted,
             count(*) FILTER (WHERE granted_at IS NULL) AS open,
             COALESCE(sum(gross_minor), 0) AS sales,
             COALESCE(sum(reward_minor) FILTER (WHERE granted_at IS NOT NULL), 0) AS rewards,
             count(total_value_minor) FILTER (WHERE granted_at IS NOT NULL) AS with_total,
             count(*) FILTER (WHERE total_value_minor <> gross_minor) AS differs,
             COALESCE(sum(total_value_minor) FILTER (WHERE total_value_minor <> gross_minor), 0) AS differs_till,
             COALESCE(sum(gross_minor) FILTER (WHERE total_value_minor <> gross_minor), 0) AS differs_sales
        FROM baskets
       WHERE merchant_id = ${p.merchantId} AND timestamp_utc >= ${start} AND timestamp_utc < ${end} ${outlet}
       GROUP BY 1, 2`.execute(db),
    sql<PointsDayRow>`
      SELECT ${dayNumber('pm.created_at', p)} AS day, tu.outlet_id,
             COALESCE(sum(pm.points) FILTER (WHERE pm.kind = 'earn'), 0) AS earned,
             COALESCE(-sum(pm.points) FILTER (WHERE pm.kind = 'spend'), 0) AS redeemed
        FROM points_movements pm
        LEFT JOIN tracking_units tu ON tu.id = pm.tracking_unit_id
       WHERE pm.merchant_id = ${p.merchantId} AND pm.created_at >= ${start} AND pm.created_at < ${end}
         AND pm.kind IN ('earn', 'spend') ${tuOutlet}
       GROUP BY 1, 2`.execute(db),
  ]);
  return { baskets: baskets.rows, points: points.rows };
}

/**
 * Per day and outlet over the period, and their totals: whole days from the figures kept per day,
 * the rest of a period cut at a time of day from the rows (docs/decisions.md, "Dashboard figures
 * kept per day").
 */
export async function dashboardDays(
  db: Kysely<DB>,
  p: DashboardPeriod,
): Promise<{ days: DashboardDay[]; totals: DashboardTotals }> {
  const part = splitPeriod(p);
  const none = { baskets: [], points: [] };
  const [fromDays, scanned, returns] = await Promise.all([
    part.days ? keptDays(db, p, part.days) : none,
    part.rest ? scannedDays(db, part.rest) : none,
    returnFigures(db, p),
  ]);
  const baskets = [...fromDays.baskets, ...scanned.baskets];
  const points = [...fromDays.points, ...scanned.points];
  const byKey = new Map<string, DashboardDay>();
  const at = (day: string, outletId: number | null): DashboardDay => {
    const key = `${day}/${outletId ?? ''}`;
    let row = byKey.get(key);
    if (!row) {
      row = { day, outletId, ...zero() };
      byKey.set(key, row);
    }
    return row;
  };
  let differsTill = 0;
  let differsSales = 0;
  for (const b of baskets) {
    const row = at(dayText(Number(b.day)), Number(b.outlet_id));
    row.baskets += Number(b.granted);
    row.openBaskets += Number(b.open);
    row.salesMinor += Number(b.sales);
    row.rewardsMinor += Number(b.rewards);
    row.withTotalValue += Number(b.with_total);
    row.totalValueDiffers += Number(b.differs);
    differsTill += Number(b.differs_till);
    differsSales += Number(b.differs_sales);
  }
  for (const x of points) {
    const row = at(dayText(Number(x.day)), x.outlet_id === null ? null : Number(x.outlet_id));
    row.pointsEarned += Number(x.earned);
    row.pointsRedeemed += Number(x.redeemed);
  }
  for (const r of returns) {
    const row = at(r.day, r.outletId);
    row.returns += r.returns;
    row.returnsMinor += r.grossMinor - r.rewardsMinor;
  }
  const days = [...byKey.values()].sort(
    (a, b) => a.day.localeCompare(b.day) || (a.outletId ?? 0) - (b.outletId ?? 0),
  );
  const sum = zero();
  for (const d of days) {
    d.revenueMinor = d.salesMinor - d.rewardsMinor - d.returnsMinor;
    for (const k of FIGURES) sum[k] += d[k];
  }
  const kept = sum.salesMinor - sum.rewardsMinor;
  return {
    days,
    totals: {
      ...sum,
      averageTicketMinor: sum.baskets === 0 ? 0 : Math.floor((2 * kept + sum.baskets) / (2 * sum.baskets)),
      totalValueDiffersTillMinor: differsTill,
      totalValueDiffersSalesMinor: differsSales,
    },
  };
}

/** Granted baskets by the local hour of the basket's time, all 24 hours. */
export async function dashboardHours(db: Kysely<DB>, p: DashboardPeriod): Promise<DashboardHour[]> {
  const part = splitPeriod(p);
  const [kept, scanned] = await Promise.all([
    part.days ? keptHours(db, p, part.days) : [],
    part.rest ? scannedHours(db, part.rest) : [],
  ]);
  const hours = Array.from({ length: 24 }, (_, hour) => ({ hour, baskets: 0, revenueMinor: 0 }));
  for (const r of [...kept, ...scanned]) {
    const h = hours[Number(r.hour)];
    if (!h) continue;
    h.baskets += Number(r.baskets);
    h.revenueMinor += Number(r.revenue);
  }
  return hours;
}

async function scannedHours(
  db: Kysely<DB>,
  p: DashboardPeriod,
): Promise<{ hour: number; baskets: string; revenue: string }[]> {
  const { start, end } = bounds(p);
  const outlet = p.outletId === null ? sql`` : sql`AND outlet_id = ${p.outletId}`;
  const rows = await sql<{ hour: number; baskets: string; revenue: string }>`
    SELECT ${hourOfDay('timestamp_utc', p)} AS hour, count(*) AS baskets,
           COALESCE(sum(gross_minor - reward_minor), 0) AS revenue
      FROM baskets
     WHERE merchant_id = ${p.merchantId} AND timestamp_utc >= ${start} AND timestamp_utc < ${end}
       AND granted_at IS NOT NULL ${outlet}
     GROUP BY 1`.execute(db);
  return rows.rows;
}
