import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { zoneOffsetMinutes } from '../shared/time.js';

/**
 * The portal's dashboard: per day (in the merchant's time zone) and outlet, over a range of days.
 * Every query reads one merchant's rows by time through an index made for it (migration 0014);
 * `reward_minor` is generated from the grant, so no JSON is read for the daily figures.
 */

export interface DashboardRange {
  merchantId: number;
  timeZone: string;
  /** First day, YYYY-MM-DD, inclusive. */
  from: string;
  /** Last day, YYYY-MM-DD, inclusive. */
  to: string;
  outletId: number | null;
}

export interface DashboardDay {
  day: string;
  outletId: number | null;
  baskets: number;
  revenueMinor: number;
  rewardsMinor: number;
  pointsEarned: number;
  pointsRedeemed: number;
}

export interface TopCampaign {
  campaignId: number;
  name: string;
  uses: number;
  costMinor: number;
}

export interface Dashboard {
  days: DashboardDay[];
  topByUse: TopCampaign[];
  topByCost: TopCampaign[];
}

/** The UTC bounds of a range of local days. */
function bounds(r: DashboardRange) {
  return {
    start: sql`(${r.from}::date::timestamp AT TIME ZONE ${r.timeZone})`,
    end: sql`((${r.to}::date + 1)::timestamp AT TIME ZONE ${r.timeZone})`,
  };
}

/** The UTC offset of a time zone at an instant, in seconds. */
function offsetSeconds(timeZone: string, ms: number): number {
  return zoneOffsetMinutes(timeZone, ms) * 60;
}

/**
 * The offsets in force over a range of instants: the first from `startMs`, then one per change
 * (daylight saving time), each from the hour it changes.
 */
export function offsetSegments(
  timeZone: string,
  startMs: number,
  endMs: number,
): { fromMs: number; offset: number }[] {
  const HOUR = 3_600_000;
  const segments = [{ fromMs: startMs, offset: offsetSeconds(timeZone, startMs) }];
  for (let day = startMs; day < endMs; day += 24 * HOUR) {
    const next = Math.min(day + 24 * HOUR, endMs);
    if (offsetSeconds(timeZone, next) === segments[segments.length - 1]?.offset) continue;
    for (let h = day + HOUR; h <= next; h += HOUR) {
      const offset = offsetSeconds(timeZone, h);
      if (offset !== segments[segments.length - 1]?.offset) {
        segments.push({ fromMs: h, offset });
        break;
      }
    }
  }
  return segments;
}

/**
 * The local day of a row as a day number (days since 1970-01-01 in local time): cheap arithmetic
 * per row with the offsets of the range, instead of a time zone conversion per row, so that the
 * database groups by day and outlet and sends only those groups.
 */
function dayNumber(column: string, segments: { fromMs: number; offset: number }[]) {
  const col = sql.ref(column);
  const [first, ...rest] = segments;
  let offset = sql`${first?.offset ?? 0}::int`;
  if (rest.length > 0) {
    const cases = rest.reverse().map((s) => sql`WHEN ${col} >= ${new Date(s.fromMs)} THEN ${s.offset}::int`);
    offset = sql`CASE ${sql.join(cases, sql` `)} ELSE ${first?.offset ?? 0}::int END`;
  }
  return sql<number>`floor((extract(epoch FROM ${col}) + ${offset}) / 86400)::int`;
}

function dayText(dayNo: number): string {
  return new Date(dayNo * 86_400_000).toISOString().slice(0, 10);
}

/** The UTC instants of a local day's midnight (approximate by a day on each side is enough for segments). */
function rangeMs(r: DashboardRange): { startMs: number; endMs: number } {
  return {
    startMs: Date.parse(`${r.from}T00:00:00Z`) - 86_400_000,
    endMs: Date.parse(`${r.to}T00:00:00Z`) + 2 * 86_400_000,
  };
}

export async function dashboard(db: Kysely<DB>, r: DashboardRange): Promise<Dashboard> {
  const { start, end } = bounds(r);
  const outlet = r.outletId === null ? sql`` : sql`AND outlet_id = ${r.outletId}`;
  const tuOutlet = r.outletId === null ? sql`` : sql`AND tu.outlet_id = ${r.outletId}`;
  const { startMs, endMs } = rangeMs(r);
  const segments = offsetSegments(r.timeZone, startMs, endMs);
  const [baskets, points, top] = await Promise.all([
    sql<{ day: number; outlet_id: number; baskets: string; revenue: string; rewards: string }>`
      SELECT ${dayNumber('timestamp_utc', segments)} AS day, outlet_id, count(*) AS baskets,
             COALESCE(sum(total_value_minor), 0) AS revenue, COALESCE(sum(reward_minor), 0) AS rewards
        FROM baskets
       WHERE merchant_id = ${r.merchantId} AND timestamp_utc >= ${start} AND timestamp_utc < ${end} ${outlet}
       GROUP BY 1, 2`.execute(db),
    sql<{ day: number; outlet_id: number | null; earned: string; redeemed: string }>`
      SELECT ${dayNumber('pm.created_at', segments)} AS day, tu.outlet_id,
             COALESCE(sum(pm.points) FILTER (WHERE pm.kind = 'earn'), 0) AS earned,
             COALESCE(-sum(pm.points) FILTER (WHERE pm.kind = 'spend'), 0) AS redeemed
        FROM points_movements pm
        LEFT JOIN tracking_units tu ON tu.id = pm.tracking_unit_id
       WHERE pm.merchant_id = ${r.merchantId} AND pm.created_at >= ${start} AND pm.created_at < ${end}
         AND pm.kind IN ('earn', 'spend') ${tuOutlet}
       GROUP BY 1, 2`.execute(db),
    topCampaigns(db, r),
  ]);
  const byKey = new Map<string, DashboardDay>();
  const at = (day: string, outletId: number | null): DashboardDay => {
    const key = `${day}/${outletId ?? ''}`;
    let row = byKey.get(key);
    if (!row) {
      row = {
        day,
        outletId,
        baskets: 0,
        revenueMinor: 0,
        rewardsMinor: 0,
        pointsEarned: 0,
        pointsRedeemed: 0,
      };
      byKey.set(key, row);
    }
    return row;
  };
  for (const b of baskets.rows) {
    const row = at(dayText(Number(b.day)), Number(b.outlet_id));
    row.baskets += Number(b.baskets);
    row.revenueMinor += Number(b.revenue);
    row.rewardsMinor += Number(b.rewards);
  }
  for (const p of points.rows) {
    const row = at(dayText(Number(p.day)), p.outlet_id === null ? null : Number(p.outlet_id));
    row.pointsEarned += Number(p.earned);
    row.pointsRedeemed += Number(p.redeemed);
  }
  const days = [...byKey.values()].sort(
    (a, b) => a.day.localeCompare(b.day) || (a.outletId ?? 0) - (b.outletId ?? 0),
  );
  return { days, ...top };
}

/** Campaigns by uses (usages net of returns) and by cost (reward value booked by grants). */
async function topCampaigns(
  db: Kysely<DB>,
  r: DashboardRange,
): Promise<Pick<Dashboard, 'topByUse' | 'topByCost'>> {
  const { start, end } = bounds(r);
  const outlet = r.outletId === null ? sql`` : sql`AND b.outlet_id = ${r.outletId}`;
  const usesOutlet =
    r.outletId === null
      ? sql``
      : sql`AND EXISTS (SELECT 1 FROM tracking_units tu WHERE tu.id = u.tracking_unit_id AND tu.outlet_id = ${r.outletId})`;
  const [uses, costs] = await Promise.all([
    sql<{ campaign_id: number; uses: string }>`
      SELECT u.campaign_id, sum(u.used - u.released) AS uses
        FROM campaign_usages u
       WHERE u.merchant_id = ${r.merchantId} AND u.created_at >= ${start} AND u.created_at < ${end} ${usesOutlet}
       GROUP BY 1`.execute(db),
    sql<{ campaign_id: number; cost: string }>`
      SELECT x.campaign_id, sum(x.minor) AS cost
        FROM baskets b, unnest(b.reward_campaign_ids, b.reward_campaign_minor) AS x (campaign_id, minor)
       WHERE b.merchant_id = ${r.merchantId} AND b.timestamp_utc >= ${start} AND b.timestamp_utc < ${end}
         AND b.reward_minor > 0 ${outlet}
       GROUP BY 1`.execute(db),
  ]);
  const ids = [...new Set([...uses.rows, ...costs.rows].map((x) => Number(x.campaign_id)))];
  const names = new Map<number, string>();
  if (ids.length > 0) {
    const rows = await db
      .selectFrom('campaigns')
      .select(['id', 'name'])
      .where('merchant_id', '=', r.merchantId)
      .where('id', 'in', ids)
      .execute();
    for (const row of rows) names.set(row.id, row.name);
  }
  const all = new Map<number, TopCampaign>();
  const of = (id: number): TopCampaign => {
    let c = all.get(id);
    if (!c) {
      c = { campaignId: id, name: names.get(id) ?? `#${id}`, uses: 0, costMinor: 0 };
      all.set(id, c);
    }
    return c;
  };
  for (const u of uses.rows) of(Number(u.campaign_id)).uses = Number(u.uses);
  for (const c of costs.rows) of(Number(c.campaign_id)).costMinor = Number(c.cost);
  const list = [...all.values()];
  return {
    topByUse: [...list].sort((a, b) => b.uses - a.uses || a.campaignId - b.campaignId).slice(0, 10),
    topByCost: [...list]
      .sort((a, b) => b.costMinor - a.costMinor || a.campaignId - b.campaignId)
      .slice(0, 10),
  };
}
