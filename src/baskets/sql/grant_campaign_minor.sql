-- grant_campaign_minor: the value booked for each campaign a grant rewarded, in minor units,
-- parallel to grant_campaign_ids (docs/decisions.md, "Dashboard figures").
--
-- The expression of the generated column baskets.reward_campaign_minor (migration 0014), whose
-- signature therefore stays as it is. PL/pgSQL rather than SQL: its plan is kept for the
-- connection, computed on every basket write.
-- A basket not granted (g is NULL, every upload's row) is answered at once, without the query.
CREATE OR REPLACE FUNCTION grant_campaign_minor(g json) RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF g IS NULL THEN
    RETURN '{}';
  END IF;
  RETURN (SELECT COALESCE(array_agg((r->>'grossRewardMinor')::bigint ORDER BY i), '{}')
    FROM json_array_elements(COALESCE(g->'booking'->'rewards', '[]'::json)) WITH ORDINALITY AS e(r, i)
   WHERE r->>'source' = 'campaign');
END $$;
