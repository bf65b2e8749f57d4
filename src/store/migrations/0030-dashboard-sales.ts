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
 */
const EXPONENT = `CASE WHEN upper(c) IN ('BHD', 'JOD', 'KWD', 'OMR', 'TND') THEN 3
                   WHEN upper(c) IN ('JPY', 'KRW', 'ISK', 'CLP', 'VND') THEN 0 ELSE 2 END`;

export const dashboardSales: Migration = {
  name: '0030-dashboard-sales',
  statements: [
    `CREATE FUNCTION basket_sales_lines(r json, b json, c text) RETURNS jsonb
     LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
     DECLARE
       stored json := r->'basket';
     BEGIN
       IF stored IS NOT NULL AND json_typeof(stored) = 'object' THEN
         RETURN (SELECT COALESCE(jsonb_agg(jsonb_build_array((p->>0)::bigint, p->>1, (p->>3)::numeric,
                                                             (p->>6)::bigint) ORDER BY i), '[]'::jsonb)
                   FROM json_array_elements(stored->'positions') WITH ORDINALITY AS x(p, i));
       END IF;
       RETURN (SELECT COALESCE(jsonb_agg(jsonb_build_array(
                        (p->>'PositionId')::bigint, NULLIF(p->>'ProductId', ''), (p->>'Amount')::numeric,
                        round(COALESCE(p->>'CurrentGrossPrice', p->>'RegularGrossPrice', '0')::numeric
                              * (p->>'Amount')::numeric * power(10::numeric, ${EXPONENT}))::bigint)
                      ORDER BY (p->>'PositionId')::bigint), '[]'::jsonb)
                 FROM json_array_elements(COALESCE(b->'Positions', '[]'::json)) AS x(p));
     END $$`,
    `CREATE FUNCTION basket_gross_minor(r json, b json, c text) RETURNS bigint
     LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
     BEGIN
       RETURN (SELECT COALESCE(sum((l->>3)::bigint), 0)::bigint
                 FROM jsonb_array_elements(basket_sales_lines(r, b, c)) AS l);
     END $$`,
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
