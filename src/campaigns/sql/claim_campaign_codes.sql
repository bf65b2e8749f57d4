-- claim_campaign_codes: the grant redeems a basket's unique codes, each once across every till
-- (docs/decisions.md, "Unique codes"). The one place a code becomes redeemed; grant_basket calls it
-- in the grant's transaction.
--
-- A code is claimed only while no grant holds it (redeemed_at IS NULL): the claim writes when,
-- which terminal and basket, and the outlet. grant_basket has locked the codes it claims
-- (free_campaign_codes) and books only while they are free, so a code already held here is a
-- broken promise: it raises, and the grant's batch is undone.
CREATE OR REPLACE FUNCTION claim_campaign_codes(p_merchant_id bigint, p_unit_id text,
  p_basket_id text, p_outlet_id bigint, p_codes text[], p_now timestamptz)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_claimed integer;
BEGIN
  UPDATE campaign_codes c
     SET redeemed_at = p_now, tracking_unit_id = p_unit_id, basket_id = p_basket_id,
         outlet_id = p_outlet_id
   WHERE c.merchant_id = p_merchant_id AND c.code = ANY (p_codes) AND c.redeemed_at IS NULL;
  GET DIAGNOSTICS v_claimed = ROW_COUNT;
  IF v_claimed < cardinality(ARRAY(SELECT DISTINCT unnest(p_codes))) THEN
    RAISE EXCEPTION 'a code to claim is redeemed already';
  END IF;
  RETURN v_claimed;
END $$;
