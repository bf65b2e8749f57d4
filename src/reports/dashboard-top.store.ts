import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { campaignNames } from '../campaigns/campaign-names.store.js';
import { type DashboardPeriod, bounds, splitPeriod } from './dashboard-period.store.js';
import { withoutJit } from './jit.store.js';

/** The dashboard's top lists: articles by sales and by quantity, campaigns by uses and by cost. */

export interface TopArticle {
  /** The PLU; null for the positions sent without one (together). */
  plu: string | null;
  /** The name the till sent with it (the latest in the period), else the sortiment's. */
  name: string | null;
  /** Amount sold, exact decimal text (pieces, or kilograms for articles sold by weight). */
  quantity: string;
  /** Line gross, minor units. */
  salesMinor: number;
}

export interface TopCampaign {
  campaignId: number;
  name: string;
  uses: number;
  costMinor: number;
}

const TOP = 10;

/** The articles of the granted baskets of the period, the first ten by sales and by quantity. */
export async function topArticles(
  db: Kysely<DB>,
  p: DashboardPeriod,
): Promise<{ byRevenue: TopArticle[]; byCount: TopArticle[] }> {
  const part = splitPeriod(p);
  const parts: RawBuilder<unknown>[] = [];
  if (part.days)
    parts.push(sql`
      SELECT NULLIF(d.plu, '') AS plu, d.quantity, d.sales_minor AS sales
        FROM dashboard_articles d
       WHERE d.merchant_id = ${p.merchantId} AND d.day >= ${part.days.from}::date
         AND d.day <= ${part.days.to}::date ${p.outletId === null ? sql`` : sql`AND d.outlet_id = ${p.outletId}`}`);
  if (part.rest) {
    const { start, end } = bounds(part.rest);
    parts.push(sql`
      SELECT l->>1 AS plu, (l->>2)::numeric AS quantity, (l->>3)::bigint AS sales
        FROM baskets b, jsonb_array_elements(b.sales_lines) AS l
       WHERE b.merchant_id = ${p.merchantId} AND b.timestamp_utc >= ${start} AND b.timestamp_utc < ${end}
         AND b.granted_at IS NOT NULL ${p.outletId === null ? sql`` : sql`AND b.outlet_id = ${p.outletId}`}`);
  }
  // Whole days are read from the articles kept per day (docs/decisions.md, "Dashboard figures kept
  // per day"), a day cut at a time of day from its baskets' lines. PostgreSQL guesses 100 lines per
  // basket, so over a long cut it could compile the query (JIT) first, which takes longer than
  // reading the lines (docs/performance.md, "The portal's pages over a year of trade"): this one
  // statement is run without it.
  const rows = await withoutJit(db, (trx) =>
    sql<{ plu: string | null; amount: string; sales: string; by: string }>`
    WITH a AS (
      SELECT x.plu, sum(x.quantity) AS quantity, sum(x.sales) AS sales
        FROM (${sql.join(parts, sql` UNION ALL `)}) x
       GROUP BY 1)
    (SELECT plu, quantity::text AS amount, sales, 'revenue' AS by FROM a ORDER BY a.sales DESC, a.plu LIMIT ${TOP})
    UNION ALL
    (SELECT plu, quantity::text AS amount, sales, 'count' AS by FROM a ORDER BY a.quantity DESC, a.plu LIMIT ${TOP})`.execute(
      trx,
    ),
  );
  const names = await articleNames(
    db,
    p,
    rows.rows.map((r) => r.plu).filter((x): x is string => x !== null),
  );
  const article = (r: (typeof rows.rows)[number]): TopArticle => ({
    plu: r.plu,
    name: r.plu === null ? null : (names.get(r.plu) ?? null),
    quantity: normalDecimal(r.amount),
    salesMinor: Number(r.sales),
  });
  return {
    byRevenue: rows.rows.filter((r) => r.by === 'revenue').map(article),
    byCount: rows.rows.filter((r) => r.by === 'count').map(article),
  };
}

/** A decimal's text without trailing zeros after the point ("3.000" → "3", "1.250" → "1.25"). */
function normalDecimal(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/**
 * Names of PLUs: the ProductName of the latest granted basket of the period that sold it, else the
 * name in one of the merchant's sortiments.
 */
async function articleNames(
  db: Kysely<DB>,
  p: DashboardPeriod,
  plus: string[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const wanted = [...new Set(plus)];
  if (wanted.length === 0) return names;
  const { start, end } = bounds(p);
  const fromBaskets = await sql<{ plu: string; name: string | null }>`
    SELECT w.plu, (
      SELECT pos->>'ProductName'
        FROM baskets b, json_array_elements(b.body->'Positions') AS pos
       WHERE b.merchant_id = ${p.merchantId} AND b.timestamp_utc >= ${start} AND b.timestamp_utc < ${end}
         AND b.granted_at IS NOT NULL
         AND b.sales_lines @> jsonb_build_array(jsonb_build_array(w.plu))
         AND pos->>'ProductId' = w.plu AND COALESCE(pos->>'ProductName', '') <> ''
       ORDER BY b.timestamp_utc DESC LIMIT 1) AS name
      FROM unnest(${sql.val(wanted)}::text[]) AS w(plu)`.execute(db);
  for (const r of fromBaskets.rows) if (r.name) names.set(r.plu, r.name);
  const missing = wanted.filter((x) => !names.has(x));
  if (missing.length > 0) {
    const fromSortiments = await sql<{ plu: string; name: string | null }>`
      SELECT DISTINCT ON (a.plu) a.plu, a.body->'Name'->0->>'val' AS name
        FROM sortiment_articles a
        JOIN sortiments s ON s.id = a.sortiment_id AND a.from_gen <= s.current_gen
             AND (a.to_gen IS NULL OR a.to_gen > s.current_gen)
       WHERE a.merchant_id = ${p.merchantId} AND a.plu = ANY (${sql.val(missing)}::text[])
       ORDER BY a.plu, a.sortiment_id`.execute(db);
    for (const r of fromSortiments.rows) if (r.name) names.set(r.plu, r.name);
  }
  return names;
}

/** Campaigns by uses (usages net of returns) and by cost (reward value booked by grants). */
export async function topCampaigns(
  db: Kysely<DB>,
  p: DashboardPeriod,
): Promise<{ topByUse: TopCampaign[]; topByCost: TopCampaign[] }> {
  const part = splitPeriod(p);
  const kept = part.days
    ? sql`
      SELECT d.campaign_id, d.uses, d.cost_minor AS cost
        FROM dashboard_campaigns d
       WHERE d.merchant_id = ${p.merchantId} AND d.day >= ${part.days.from}::date
         AND d.day <= ${part.days.to}::date ${p.outletId === null ? sql`` : sql`AND d.outlet_id = ${p.outletId}`}`
    : null;
  const parts: RawBuilder<unknown>[] = kept ? [kept] : [];
  if (part.rest) {
    const { start, end } = bounds(part.rest);
    const outlet = p.outletId === null ? sql`` : sql`AND b.outlet_id = ${p.outletId}`;
    const usesOutlet =
      p.outletId === null
        ? sql``
        : sql`AND EXISTS (SELECT 1 FROM tracking_units tu WHERE tu.id = u.tracking_unit_id AND tu.outlet_id = ${p.outletId})`;
    parts.push(sql`
      SELECT u.campaign_id, (u.used - u.released)::bigint AS uses, 0::bigint AS cost
        FROM campaign_usages u
       WHERE u.merchant_id = ${p.merchantId} AND u.created_at >= ${start} AND u.created_at < ${end} ${usesOutlet}`);
    parts.push(sql`
      SELECT x.campaign_id, 0::bigint AS uses, x.minor AS cost
        FROM baskets b, unnest(b.reward_campaign_ids, b.reward_campaign_minor) AS x (campaign_id, minor)
       WHERE b.merchant_id = ${p.merchantId} AND b.timestamp_utc >= ${start} AND b.timestamp_utc < ${end}
         AND b.reward_minor > 0 ${outlet}`);
  }
  // Uses and cost of whole days from the campaigns' figures kept per day, of a day cut at a time
  // of day from the usages and the baskets (docs/decisions.md, "Dashboard figures kept per day").
  const figures = await sql<{ campaign_id: number; uses: string; cost: string }>`
    SELECT x.campaign_id, sum(x.uses) AS uses, sum(x.cost) AS cost
      FROM (${sql.join(parts, sql` UNION ALL `)}) x
     GROUP BY 1`.execute(db);
  const names = await campaignNames(
    db,
    p.merchantId,
    figures.rows.map((x) => Number(x.campaign_id)),
  );
  const all = new Map<number, TopCampaign>();
  const of = (id: number): TopCampaign => {
    let c = all.get(id);
    if (!c) {
      c = { campaignId: id, name: names.get(id) ?? `#${id}`, uses: 0, costMinor: 0 };
      all.set(id, c);
    }
    return c;
  };
  for (const f of figures.rows) {
    const c = of(Number(f.campaign_id));
    c.uses = Number(f.uses);
    c.costMinor = Number(f.cost);
  }
  const list = [...all.values()];
  return {
    topByUse: [...list].sort((a, b) => b.uses - a.uses || a.campaignId - b.campaignId).slice(0, TOP),
    topByCost: [...list]
      .sort((a, b) => b.costMinor - a.costMinor || a.campaignId - b.campaignId)
      .slice(0, TOP),
  };
}
