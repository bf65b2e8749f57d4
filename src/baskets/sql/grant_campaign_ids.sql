-- grant_campaign_ids: the campaigns a grant rewarded, in the order of its rewards
-- (docs/decisions.md, "Dashboard figures").
--
-- With grant_campaign_minor, two parallel arrays that the dashboard's "top campaigns by cost" reads
-- without parsing the grant's JSON: the expression of the generated column
-- baskets.reward_campaign_ids (migration 0014), whose signature therefore stays as it is.
-- PL/pgSQL rather than SQL: its plan is kept for the connection, computed on every basket write.
-- A basket not granted (g is NULL, every upload's row) is answered at once, without the query.
CREATE OR REPLACE FUNCTION grant_campaign_ids(g json) RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF g IS NULL THEN
    RETURN '{}';
  END IF;
  RETURN (SELECT COALESCE(array_agg((r->>'couponId')::bigint ORDER BY i), '{}')
    FROM json_array_elements(COALESCE(g->'booking'->'rewards', '[]'::json)) WITH ORDINALITY AS e(r, i)
   WHERE r->>'source' = 'campaign');
END $$;
