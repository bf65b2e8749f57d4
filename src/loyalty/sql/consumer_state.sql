-- consumer_state: what a consumer holds now, as the engine sees it at the upload, the grant and
-- the return (docs/decisions.md, "Grant and points booking"; docs/architecture.md, "Where each
-- rule lives").
--
-- The unexpired rest of their points lots per scheme and their campaign usages per campaign
-- (returns release usages), the tills' and their online orders' (order_campaign_usages; a whole
-- refund releases), for the schemes and campaigns asked for. A consumer is a profile, or a
-- card of its own. grant_basket books an evaluated basket only while this is still what its
-- evaluation saw. PL/pgSQL rather than SQL, so that its statement is planned once per connection
-- (an SQL function called with arguments is planned anew on every call), and with its generic plan
-- kept (plan_cache_mode), which reads each table by the profile's and the card's indexes: left to
-- choose, PostgreSQL planned it afresh at every call, dearer as the merchant's statistics grew
-- (docs/decisions.md, "Grant and points booking": "The consumer's state planned once").
CREATE OR REPLACE FUNCTION consumer_state(p_merchant_id bigint, p_profile_id bigint,
  p_card_id bigint, p_scheme_ids bigint[], p_campaign_ids bigint[], p_now timestamptz)
RETURNS json LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN json_build_object(
    'points', COALESCE((
      SELECT json_object_agg(scheme_id, points ORDER BY scheme_id) FROM (
        SELECT l.scheme_id, sum(l.remaining)::integer AS points FROM points_lots l
         WHERE l.merchant_id = p_merchant_id AND l.remaining > 0
           AND (l.expires_at IS NULL OR l.expires_at > p_now)
           AND (l.profile_id = p_profile_id OR l.card_id = p_card_id)
           AND l.scheme_id = ANY (p_scheme_ids)
         GROUP BY l.scheme_id) s), '{}'::json),
    'usages', COALESCE((
      SELECT json_object_agg(campaign_id, used ORDER BY campaign_id) FROM (
        SELECT campaign_id, sum(used)::integer AS used FROM (
          SELECT u.campaign_id, u.used - u.released AS used FROM campaign_usages u
           WHERE u.merchant_id = p_merchant_id AND u.campaign_id = ANY (p_campaign_ids)
             AND (u.profile_id = p_profile_id OR u.card_id = p_card_id)
          UNION ALL
          SELECT o.campaign_id, o.used - o.released FROM order_campaign_usages o
           WHERE o.merchant_id = p_merchant_id AND o.campaign_id = ANY (p_campaign_ids)
             AND o.profile_id = p_profile_id) t
         GROUP BY campaign_id) s), '{}'::json));
END $$;
