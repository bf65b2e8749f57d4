import { type Kysely, sql } from 'kysely';
import { type Decimal, divRoundHalfAwayFromZero, parseDecimal, powerOfTen } from '../shared/money.js';
import type { DB } from '../store/schema.js';
import { type DashboardPeriod, bounds, localDayOf } from './dashboard-period.store.js';

/**
 * Returns as the dashboard counts them (docs/decisions.md, "Dashboard figures"): on the local day
 * of the return, at the outlet of the basket, worth what the till refunds: the returned share of
 * each position's line gross (value × returned / sold, rounded half away from zero, over all
 * returns of the basket so far, so that the returns of a basket add up to its whole line gross)
 * less the reward value the return refunded (`RefundedRewardValue`, stored with the return).
 */
export interface ReturnFigure {
  day: string;
  outletId: number;
  returns: number;
  /** Returned line gross, minor units. */
  grossMinor: number;
  /** Rewards the returns refunded, minor units. */
  rewardsMinor: number;
}

type Line = [number, string | null, string | number, number];

interface Row {
  tracking_unit_id: string;
  basket_id: string;
  outlet_id: number;
  created_at: Date | string;
  body: { Positions: { PositionId: number; Amount: string }[] };
  refunded: number | string | null;
  sales_lines: Line[] | null;
}

function decimal(text: string | number): Decimal {
  const d = parseDecimal(typeof text === 'number' ? String(text) : text);
  if (!d) throw new Error(`stored amount is not a decimal: ${text}`);
  return d;
}

function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return {
    units: a.units * powerOfTen(scale - a.scale) + b.units * powerOfTen(scale - b.scale),
    scale,
  };
}

/** value × returned / sold, rounded half away from zero; the whole value once all is returned. */
function share(valueMinor: number, returned: Decimal, sold: Decimal): number {
  const r = returned.units * powerOfTen(sold.scale);
  const s = sold.units * powerOfTen(returned.scale);
  if (r >= s) return valueMinor;
  return Number(divRoundHalfAwayFromZero(BigInt(valueMinor) * r, s));
}

/** The returns booked in the period, per local day and outlet. */
export async function returnFigures(db: Kysely<DB>, p: DashboardPeriod): Promise<ReturnFigure[]> {
  const { start, end } = bounds(p);
  const outlet = p.outletId === null ? sql`` : sql`AND b.outlet_id = ${p.outletId}`;
  // Every return of each basket with a return in the period: a return's share depends on the
  // returns before it.
  const rows = await sql<Row>`
    SELECT r.tracking_unit_id, r.basket_id, b.outlet_id, r.created_at, r.body,
           r.response->'booking'->>'refundedMinor' AS refunded, b.sales_lines
      FROM basket_returns r
      JOIN baskets b ON b.tracking_unit_id = r.tracking_unit_id AND b.basket_id = r.basket_id
     WHERE r.merchant_id = ${p.merchantId} ${outlet}
       AND (r.tracking_unit_id, r.basket_id) IN (
             SELECT x.tracking_unit_id, x.basket_id FROM basket_returns x
              WHERE x.merchant_id = ${p.merchantId} AND x.created_at >= ${start} AND x.created_at < ${end})
     ORDER BY r.tracking_unit_id, r.basket_id, r.created_at, r.return_id`.execute(db);
  const out = new Map<string, ReturnFigure>();
  let basketKey = '';
  let returned = new Map<number, Decimal>();
  let grossSoFar = 0;
  for (const row of rows.rows) {
    const key = `${row.tracking_unit_id}\u0000${row.basket_id}`;
    if (key !== basketKey) {
      basketKey = key;
      returned = new Map();
      grossSoFar = 0;
    }
    const lines = row.sales_lines ?? [];
    for (const position of row.body.Positions) {
      returned.set(
        position.PositionId,
        add(returned.get(position.PositionId) ?? { units: 0n, scale: 0 }, decimal(position.Amount)),
      );
    }
    let gross = 0;
    for (const [positionId, , sold, lineGross] of lines) {
      const r = returned.get(Number(positionId));
      if (r) gross += share(Number(lineGross), r, decimal(sold));
    }
    const increment = gross - grossSoFar;
    grossSoFar = gross;
    const at = new Date(row.created_at).getTime();
    if (at < p.startMs || at >= p.endMs) continue;
    const day = localDayOf(at, p.timeZone).day;
    const outletId = Number(row.outlet_id);
    const k = `${day}/${outletId}`;
    let f = out.get(k);
    if (!f) {
      f = { day, outletId, returns: 0, grossMinor: 0, rewardsMinor: 0 };
      out.set(k, f);
    }
    f.returns += 1;
    f.grossMinor += increment;
    f.rewardsMinor += Number(row.refunded ?? 0);
  }
  return [...out.values()];
}
