-- customer_uses_by_reference: the customer an order's profileReference names
-- (resolve_profile_reference), their uses of the campaigns given (consumer_state) and, given the
-- tier schemes' bases, their measures in those schemes (tier_measures): what an order of the
-- batched writer is priced on before book_orders reads them again under the customer's lock
-- (docs/decisions.md, "Usage limits and status tiers on online orders"; customerUsesByReference,
-- src/orders/order-customer.store.ts). No row: the reference names no usable profile. PL/pgSQL so
-- that each connection plans its query once, not at every order's pricing.
CREATE OR REPLACE FUNCTION customer_uses_by_reference(p_merchant_id bigint, p_reference text,
  p_otp_sha256 text, p_campaign_ids bigint[], p_now timestamptz, p_tier_bases json,
  p_time_zone text)
RETURNS TABLE (profile_id bigint, usages json, tiers json)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY
    SELECT x.profile_id,
           consumer_state(p_merchant_id, x.profile_id, NULL::bigint, '{}'::bigint[],
             p_campaign_ids, p_now)->'usages',
           CASE WHEN p_tier_bases IS NULL THEN NULL::json
                ELSE tier_measures(p_merchant_id, x.profile_id, NULL::bigint, p_tier_bases,
                  p_time_zone, p_now) END
      FROM resolve_profile_reference(p_merchant_id, p_reference, p_otp_sha256, p_now) x;
END $$;
