-- free_campaign_codes: which of a basket's unique codes no grant holds, locked until the end of the
-- caller's transaction (docs/decisions.md, "Unique codes").
--
-- grant_basket reads it as part of what the grant's evaluation sees: the basket's codes that are
-- still free make their campaigns apply, and the grant books an evaluation only while the free
-- codes are still these. The rows stay locked until the grant commits, so a second grant that
-- wants the same code waits, then reads it as redeemed (READ COMMITTED re-reads a row it waited
-- for) and is evaluated without it. Locked in code order; should two batches of grants still wait
-- for each other, one is undone and its grants are written one by one (grant_baskets).
CREATE OR REPLACE FUNCTION free_campaign_codes(p_merchant_id bigint, p_codes text[])
RETURNS json LANGUAGE plpgsql AS $$
DECLARE
  v_free text[];
BEGIN
  IF cardinality(p_codes) = 0 THEN
    RETURN '[]'::json;
  END IF;
  SELECT COALESCE(array_agg(f.code ORDER BY f.code), '{}') INTO v_free FROM (
    SELECT c.code FROM campaign_codes c
     WHERE c.merchant_id = p_merchant_id AND c.code = ANY (p_codes) AND c.redeemed_at IS NULL
     ORDER BY c.code
       FOR UPDATE) f;
  RETURN array_to_json(v_free);
END $$;
