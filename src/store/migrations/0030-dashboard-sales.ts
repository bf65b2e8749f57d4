import type { Migration } from './migration.js';

/**
 * The dashboard's sales from the positions of the granted baskets (docs/decisions.md, "Dashboard
 * figures"), whether or not the till sent `TotalValue`.
 *
 * - `sales_lines`: per position `[PositionId, PLU or null, Amount, line gross in minor units]`, from
 *   the parsed basket the upload stored (`result.basket`, docs/decisions.md "The parsed basket is
 *   stored versioned"); for a basket stored before that, from its body, priced by the same rule
 *   (unit price times Amount, rounded half away from zero to the currency's minor unit).
 * - `gross_minor`: their sum.
 *
 * Both are generated only once a basket is granted (its positions never change after that), so an
 * upload computes nothing more; the grant reads the stored basket once more for each. The index
 * replaces 0014's on merchant and time, with what the daily figures read, so they stay an
 * index-only scan; returns get one by merchant and time.
 *
 * The functions this migration made or changed are kept in their files,
 * `src/baskets/sql/basket_sales_lines.sql`, `src/baskets/sql/basket_gross_minor.sql`, which the
 * migrator applies whenever they change, before the numbered migrations, so that the generated
 * columns here find them (docs/architecture.md, "The stored-function layer").
 */
export const dashboardSales: Migration = {
  name: '0030-dashboard-sales',
  statements: [
    `ALTER TABLE baskets
       ADD COLUMN sales_lines jsonb GENERATED ALWAYS AS
         (CASE WHEN granted_at IS NULL THEN NULL ELSE basket_sales_lines(result, body, currency) END) STORED,
       ADD COLUMN gross_minor bigint GENERATED ALWAYS AS
         (CASE WHEN granted_at IS NULL THEN NULL ELSE basket_gross_minor(result, body, currency) END) STORED`,
    `DROP INDEX baskets_merchant_time`,
    `CREATE INDEX baskets_merchant_sales ON baskets (merchant_id, timestamp_utc)
       INCLUDE (outlet_id, granted_at, gross_minor, reward_minor, total_value_minor)`,
    `CREATE INDEX basket_returns_merchant_time ON basket_returns (merchant_id, created_at)`,
  ],
};
