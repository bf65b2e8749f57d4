-- scheme_counts_basket: whether a basket counts for a scheme's spend tier (docs/decisions.md,
-- "Status tiers": "Spend where the scheme runs", "Spend while the scheme runs"): bought at one of
-- the scheme's outlets (p_outlets; null: every outlet) and within its validity (p_valid_from
-- inclusive, p_valid_to exclusive, the basket's Timestamp; null: no bound), as the engine's
-- schemeValidFor decides where and when the scheme earns (src/engine/loyalty.rule.ts).
-- tier_measures asks it of the baskets and of the returns' baskets. A plain SQL expression, so
-- that PostgreSQL inlines it where it is called.
CREATE OR REPLACE FUNCTION scheme_counts_basket(p_outlet_id bigint, p_at timestamptz,
  p_outlets bigint[], p_valid_from timestamptz, p_valid_to timestamptz)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT (p_outlets IS NULL OR p_outlet_id = ANY (p_outlets))
     AND (p_valid_from IS NULL OR p_at >= p_valid_from)
     AND (p_valid_to IS NULL OR p_at < p_valid_to)
$$;
