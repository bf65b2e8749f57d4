-- basket_gross_minor: a granted basket's gross sales in minor units, the sum of its
-- basket_sales_lines (docs/decisions.md, "Dashboard figures").
--
-- The expression of the generated column baskets.gross_minor (migration 0030), computed only once
-- a basket is granted; the dashboard's daily figures read it from an index-only scan. The column
-- depends on this function: its signature stays as it is (a new one would need a new function and
-- a migration that moves the column to it). A changed body holds for rows written afterwards.
CREATE OR REPLACE FUNCTION basket_gross_minor(r json, b json, c text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN (SELECT COALESCE(sum((l->>3)::bigint), 0)::bigint
            FROM jsonb_array_elements(basket_sales_lines(r, b, c)) AS l);
END $$;
