import type { Migration } from './migration.js';

/**
 * The dashboard's figures kept per day (migration 0036) are added to when the dashboard is read,
 * not on every write (docs/decisions.md, "Dashboard figures kept per day"): the triggers of 0036
 * append each change to `dashboard_changes` (their functions, `src/reports/sql/dashboard_*.sql`,
 * now only insert there), and `dashboard_fold` adds a merchant's changes to the figures and removes
 * them. A grant then inserts one row instead of updating the rows of its day, hour and articles,
 * which every grant of the outlet would wait for. Changes since 0036 are in the figures already.
 */
export const dashboardChanges: Migration = {
  name: '0037-dashboard-changes',
  statements: [
    `CREATE TABLE dashboard_changes (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial,
       kind text NOT NULL CHECK (kind IN ('basket', 'points', 'usage')),
       sign smallint NOT NULL CHECK (sign IN (-1, 1)),
       at timestamptz NOT NULL,
       outlet_id bigint,
       tracking_unit_id text,
       granted boolean,
       gross_minor bigint,
       reward_minor bigint,
       total_value_minor bigint,
       sales_lines jsonb,
       campaign_ids bigint[],
       campaign_minor bigint[],
       points_earned bigint,
       points_redeemed bigint,
       campaign_id bigint,
       uses bigint,
       PRIMARY KEY (merchant_id, id))`,
  ],
};
