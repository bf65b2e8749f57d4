import type { Migration } from './migration.js';

/**
 * The dashboard's figures kept per day (docs/decisions.md, "Dashboard figures kept per day";
 * docs/performance.md, "The portal's pages over a year of trade"): the portal reads a year from
 * these instead of a year of baskets. Keys are the local day (and hour) in the merchant's time zone
 * and the outlet; 0 stands for "no outlet" (points booked without a till) and '' for positions
 * sent without a PLU, since primary keys take no NULL.
 *
 * - `dashboard_hours`: per day, outlet and hour, the baskets' figures and the points.
 * - `dashboard_articles`: per day, outlet and PLU, the amount sold and its line gross.
 * - `dashboard_campaigns`: per day, outlet and campaign, its uses and the reward value booked.
 *
 * Triggers after each statement on the tables the upload, the grant and the return already write
 * (baskets, points_movements, campaign_usages) keep them; their functions are files,
 * `src/reports/sql/dashboard_*.sql`, applied before the numbered migrations. The statements after
 * the tables fill them from the rows already there, in the same transaction as the triggers.
 */
export const DASHBOARD_BACKFILL = [
  `INSERT INTO dashboard_hours (merchant_id, day, outlet_id, hour, baskets, open_baskets, sales_minor,
     rewards_minor, with_total_value, total_value_differs, differs_till_minor, differs_sales_minor)
   SELECT b.merchant_id, (b.timestamp_utc AT TIME ZONE m.time_zone)::date, b.outlet_id,
          extract(hour FROM b.timestamp_utc AT TIME ZONE m.time_zone)::smallint,
          count(*) FILTER (WHERE b.granted_at IS NOT NULL), count(*) FILTER (WHERE b.granted_at IS NULL),
          COALESCE(sum(b.gross_minor) FILTER (WHERE b.granted_at IS NOT NULL), 0),
          COALESCE(sum(b.reward_minor) FILTER (WHERE b.granted_at IS NOT NULL), 0),
          count(b.total_value_minor) FILTER (WHERE b.granted_at IS NOT NULL),
          count(*) FILTER (WHERE b.granted_at IS NOT NULL AND b.total_value_minor <> b.gross_minor),
          COALESCE(sum(b.total_value_minor) FILTER (WHERE b.granted_at IS NOT NULL AND b.total_value_minor <> b.gross_minor), 0),
          COALESCE(sum(b.gross_minor) FILTER (WHERE b.granted_at IS NOT NULL AND b.total_value_minor <> b.gross_minor), 0)
     FROM baskets b JOIN merchants m ON m.id = b.merchant_id
    GROUP BY 1, 2, 3, 4`,
  `INSERT INTO dashboard_hours AS d (merchant_id, day, outlet_id, hour, points_earned, points_redeemed)
   SELECT p.merchant_id, (p.created_at AT TIME ZONE m.time_zone)::date, COALESCE(tu.outlet_id, 0),
          extract(hour FROM p.created_at AT TIME ZONE m.time_zone)::smallint,
          COALESCE(sum(p.points) FILTER (WHERE p.kind = 'earn'), 0),
          COALESCE(-sum(p.points) FILTER (WHERE p.kind = 'spend'), 0)
     FROM points_movements p JOIN merchants m ON m.id = p.merchant_id
     LEFT JOIN tracking_units tu ON tu.id = p.tracking_unit_id
    WHERE p.kind IN ('earn', 'spend')
    GROUP BY 1, 2, 3, 4
   ON CONFLICT (merchant_id, day, outlet_id, hour) DO UPDATE SET
     points_earned = excluded.points_earned, points_redeemed = excluded.points_redeemed`,
  `INSERT INTO dashboard_articles (merchant_id, day, outlet_id, plu, quantity, sales_minor)
   SELECT b.merchant_id, (b.timestamp_utc AT TIME ZONE m.time_zone)::date, b.outlet_id,
          COALESCE(l->>1, ''), sum((l->>2)::numeric), sum((l->>3)::bigint)
     FROM baskets b JOIN merchants m ON m.id = b.merchant_id
    CROSS JOIN jsonb_array_elements(b.sales_lines) AS l
    WHERE b.granted_at IS NOT NULL
    GROUP BY 1, 2, 3, 4`,
  `INSERT INTO dashboard_campaigns (merchant_id, day, outlet_id, campaign_id, cost_minor)
   SELECT b.merchant_id, (b.timestamp_utc AT TIME ZONE m.time_zone)::date, b.outlet_id, x.campaign_id,
          sum(x.minor)
     FROM baskets b JOIN merchants m ON m.id = b.merchant_id
    CROSS JOIN unnest(b.reward_campaign_ids, b.reward_campaign_minor) AS x (campaign_id, minor)
    WHERE b.granted_at IS NOT NULL
    GROUP BY 1, 2, 3, 4`,
  `INSERT INTO dashboard_campaigns AS d (merchant_id, day, outlet_id, campaign_id, uses)
   SELECT u.merchant_id, (u.created_at AT TIME ZONE m.time_zone)::date, COALESCE(tu.outlet_id, 0),
          u.campaign_id, sum(u.used - u.released)
     FROM campaign_usages u JOIN merchants m ON m.id = u.merchant_id
     LEFT JOIN tracking_units tu ON tu.id = u.tracking_unit_id
    GROUP BY 1, 2, 3, 4
   ON CONFLICT (merchant_id, day, outlet_id, campaign_id) DO UPDATE SET uses = excluded.uses`,
];

const counts = (names: string[]): string =>
  names.map((n) => `${n} bigint NOT NULL DEFAULT 0`).join(',\n       ');

export const dashboardDays: Migration = {
  name: '0036-dashboard-days',
  statements: [
    `CREATE TABLE dashboard_hours (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       day date NOT NULL,
       outlet_id bigint NOT NULL,
       hour smallint NOT NULL,
       ${counts([
         'baskets',
         'open_baskets',
         'sales_minor',
         'rewards_minor',
         'with_total_value',
         'total_value_differs',
         'differs_till_minor',
         'differs_sales_minor',
         'points_earned',
         'points_redeemed',
       ])},
       PRIMARY KEY (merchant_id, day, outlet_id, hour))`,
    `CREATE TABLE dashboard_articles (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       day date NOT NULL,
       outlet_id bigint NOT NULL,
       plu text NOT NULL,
       quantity numeric NOT NULL DEFAULT 0,
       sales_minor bigint NOT NULL DEFAULT 0,
       PRIMARY KEY (merchant_id, day, outlet_id, plu))`,
    `CREATE TABLE dashboard_campaigns (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       day date NOT NULL,
       outlet_id bigint NOT NULL,
       campaign_id bigint NOT NULL,
       ${counts(['uses', 'cost_minor'])},
       PRIMARY KEY (merchant_id, day, outlet_id, campaign_id))`,
    ...DASHBOARD_BACKFILL,
    ...(['INSERT', 'UPDATE', 'DELETE'] as const).flatMap((op) => {
      const refs =
        op === 'INSERT'
          ? 'NEW TABLE AS new_rows'
          : op === 'DELETE'
            ? 'OLD TABLE AS old_rows'
            : 'OLD TABLE AS old_rows NEW TABLE AS new_rows';
      const name = op.toLowerCase();
      return [
        `CREATE TRIGGER dashboard_baskets_${name} AFTER ${op} ON baskets REFERENCING ${refs}
           FOR EACH STATEMENT EXECUTE FUNCTION dashboard_baskets_changed()`,
        `CREATE TRIGGER dashboard_usages_${name} AFTER ${op} ON campaign_usages REFERENCING ${refs}
           FOR EACH STATEMENT EXECUTE FUNCTION dashboard_usages_changed()`,
      ];
    }),
    `CREATE TRIGGER dashboard_points_insert AFTER INSERT ON points_movements
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dashboard_points_changed()`,
  ],
};
