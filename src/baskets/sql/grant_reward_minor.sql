-- grant_reward_minor: the value of the rewards a grant booked, in minor units (docs/decisions.md,
-- "Dashboard figures").
--
-- The expression of the generated column baskets.reward_minor (migration 0014), which the
-- dashboard reads from an index-only scan; its signature therefore stays as it is. PL/pgSQL rather
-- than SQL: its plan is kept for the connection, computed on every basket write.
-- A basket not granted (g is NULL, every upload's row) is answered at once, without the query.
CREATE OR REPLACE FUNCTION grant_reward_minor(g json) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF g IS NULL THEN
    RETURN 0;
  END IF;
  RETURN (SELECT COALESCE(SUM((r->>'grossRewardMinor')::bigint), 0)
    FROM json_array_elements(COALESCE(g->'booking'->'rewards', '[]'::json)) AS r);
END $$;
