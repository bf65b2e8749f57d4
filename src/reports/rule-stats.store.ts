import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * What one campaign or loyalty scheme did, per local day of the merchant's time zone (the day of
 * the basket's Timestamp) over a range of days: for a campaign, the granted baskets it rewarded,
 * its uses (applications, net of returns, as the dashboard counts them) and its cost (the reward
 * value the grants booked, in minor units); for a scheme, the baskets that moved its points, the
 * points earned and redeemed, and the value of its rewards. Money and points are never added together.
 */

export interface RuleStatsRange {
  merchantId: number;
  timeZone: string;
  /** First day, YYYY-MM-DD, inclusive. */
  from: string;
  /** Last day, YYYY-MM-DD, inclusive. */
  to: string;
}

export interface CampaignStatsDay {
  day: string;
  baskets: number;
  uses: number;
  costMinor: number;
}

export interface SchemeStatsDay {
  day: string;
  baskets: number;
  pointsEarned: number;
  pointsRedeemed: number;
  /** The value of the scheme's rewards the grants booked, in minor units (money, apart from points). */
  costMinor: number;
}

function bounds(r: RuleStatsRange) {
  return {
    start: sql`(${r.from}::date::timestamp AT TIME ZONE ${r.timeZone})`,
    end: sql`((${r.to}::date + 1)::timestamp AT TIME ZONE ${r.timeZone})`,
  };
}

const dayText = (d: unknown): string =>
  d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10);

export async function campaignStats(
  db: Kysely<DB>,
  r: RuleStatsRange,
  campaignId: number,
): Promise<CampaignStatsDay[]> {
  const { start, end } = bounds(r);
  const rows = await sql<{ day: unknown; baskets: string; uses: string; cost: string }>`
    SELECT to_char(b.timestamp_utc AT TIME ZONE ${r.timeZone}, 'YYYY-MM-DD') AS day,
           count(*) AS baskets,
           COALESCE(sum(u.used - u.released), 0) AS uses,
           COALESCE(sum((SELECT sum(x.minor) FROM unnest(b.reward_campaign_ids, b.reward_campaign_minor)
                            AS x (campaign_id, minor) WHERE x.campaign_id = ${campaignId})), 0) AS cost
      FROM baskets b
      LEFT JOIN campaign_usages u
        ON u.tracking_unit_id = b.tracking_unit_id AND u.basket_id = b.basket_id AND u.campaign_id = ${campaignId}
     WHERE b.merchant_id = ${r.merchantId} AND b.timestamp_utc >= ${start} AND b.timestamp_utc < ${end}
       AND b.reward_minor > 0 AND ${campaignId}::bigint = ANY (b.reward_campaign_ids)
     GROUP BY 1 ORDER BY 1`.execute(db);
  return rows.rows.map((x) => ({
    day: dayText(x.day),
    baskets: Number(x.baskets),
    uses: Number(x.uses),
    costMinor: Number(x.cost),
  }));
}

/** What a campaign gave online orders on one local day of the time they were placed. */
export interface CampaignOrdersDay {
  day: string;
  orders: number;
  uses: number;
  costMinor: number;
}

/**
 * The campaigns the online orders placed in the range were given (the campaigns an order's
 * pricing stored with it), a row `c` per order and campaign; an order refunded in whole counts
 * nothing, as a till's return takes back its uses.
 */
function orderCampaignsIn(r: RuleStatsRange) {
  const { start, end } = bounds(r);
  return sql`checkout_orders o
     CROSS JOIN LATERAL json_array_elements(COALESCE(o.priced->'priced'->'campaigns', '[]'::json)) c
     WHERE o.merchant_id = ${r.merchantId} AND o.created_at >= ${start} AND o.created_at < ${end}
       AND o.status <> 'refunded'`;
}

/**
 * The online orders a campaign gave a reward, per local day of the time they were placed: the
 * orders, the campaign's applications in them and its discount; orders priced before their
 * campaigns were stored count nothing.
 */
export async function campaignOrderStats(
  db: Kysely<DB>,
  r: RuleStatsRange,
  campaignId: number,
): Promise<CampaignOrdersDay[]> {
  const rows = await sql<{ day: unknown; orders: string; uses: string; cost: string }>`
    SELECT to_char(o.created_at AT TIME ZONE ${r.timeZone}, 'YYYY-MM-DD') AS day,
           count(*) AS orders, sum((c->>'uses')::bigint) AS uses, sum((c->>'discountMinor')::bigint) AS cost
      FROM ${orderCampaignsIn(r)} AND (c->>'campaignId')::bigint = ${campaignId}
     GROUP BY 1 ORDER BY 1`.execute(db);
  return rows.rows.map((x) => ({
    day: dayText(x.day),
    orders: Number(x.orders),
    uses: Number(x.uses),
    costMinor: Number(x.cost),
  }));
}

/** Per campaign, the online orders it gave a reward in the range (the list's column, beside the baskets). */
export async function campaignOrders(db: Kysely<DB>, r: RuleStatsRange): Promise<Map<number, number>> {
  const rows = await sql<{ campaign_id: string; orders: string }>`
    SELECT (c->>'campaignId')::bigint AS campaign_id, count(*) AS orders
      FROM ${orderCampaignsIn(r)}
     GROUP BY 1`.execute(db);
  return new Map(rows.rows.map((x) => [Number(x.campaign_id), Number(x.orders)]));
}

/** Per campaign, the granted baskets its rewards were booked on in the range (the list's column). */
export async function campaignBaskets(db: Kysely<DB>, r: RuleStatsRange): Promise<Map<number, number>> {
  const { start, end } = bounds(r);
  const rows = await sql<{ campaign_id: number; baskets: string }>`
    SELECT x.campaign_id, count(DISTINCT (b.tracking_unit_id, b.basket_id)) AS baskets
      FROM baskets b, unnest(b.reward_campaign_ids) AS x (campaign_id)
     WHERE b.merchant_id = ${r.merchantId} AND b.timestamp_utc >= ${start} AND b.timestamp_utc < ${end}
       AND b.reward_minor > 0
     GROUP BY 1`.execute(db);
  return new Map(rows.rows.map((x) => [Number(x.campaign_id), Number(x.baskets)]));
}

export async function schemeStats(
  db: Kysely<DB>,
  r: RuleStatsRange,
  schemeId: number,
): Promise<SchemeStatsDay[]> {
  const { start, end } = bounds(r);
  // Points moved per basket first; the reward value of a basket that redeemed points is read
  // from its grant (rewards of the source "scheme" under the scheme's id).
  const rows = await sql<{ day: unknown; baskets: string; earned: string; redeemed: string; cost: string }>`
    WITH moves AS (
      SELECT pm.tracking_unit_id, pm.basket_id,
             COALESCE(sum(pm.points) FILTER (WHERE pm.kind = 'earn'), 0) AS earned,
             COALESCE(-sum(pm.points) FILTER (WHERE pm.kind = 'spend'), 0) AS redeemed
        FROM points_movements pm
       WHERE pm.merchant_id = ${r.merchantId} AND pm.created_at >= ${start} AND pm.scheme_id = ${schemeId}
         AND pm.kind IN ('earn', 'spend')
       GROUP BY 1, 2)
    SELECT to_char(b.timestamp_utc AT TIME ZONE ${r.timeZone}, 'YYYY-MM-DD') AS day,
           count(*) AS baskets, sum(m.earned) AS earned, sum(m.redeemed) AS redeemed,
           COALESCE(sum(CASE WHEN m.redeemed > 0 THEN (
             SELECT sum((x->>'grossRewardMinor')::bigint)
               FROM json_array_elements(COALESCE(b.grant_result->'booking'->'rewards', '[]'::json)) AS x
              WHERE x->>'source' = 'scheme' AND (x->>'couponId')::bigint = ${schemeId}) END), 0) AS cost
      FROM moves m
      JOIN baskets b ON b.tracking_unit_id = m.tracking_unit_id AND b.basket_id = m.basket_id
     WHERE b.merchant_id = ${r.merchantId} AND b.timestamp_utc >= ${start} AND b.timestamp_utc < ${end}
     GROUP BY 1 ORDER BY 1`.execute(db);
  return rows.rows.map((x) => ({
    day: dayText(x.day),
    baskets: Number(x.baskets),
    pointsEarned: Number(x.earned),
    pointsRedeemed: Number(x.redeemed),
    costMinor: Number(x.cost),
  }));
}
