-- tier_measures: a consumer's tier measure per scheme with tiers, before what is being booked now
-- (docs/decisions.md, "Status tiers"; src/engine/tiers.ts places it among the tiers).
--
-- p_bases: [{"schemeId": 7, "measure": "points" | "spend", "rollingDays": 90 | null,
-- "calendar": "month" | "quarter" | "year" | null, "outletIds": [3, 4] | null, "validFromMs",
-- "validToMs": epoch milliseconds | null}]. The period ends
-- at p_now and starts N days before it (rolling) or at the start of the current month, quarter or
-- year in p_time_zone.
-- - points: the points the consumer earned in the scheme in the period minus those returns took
--   back in it (movements 'earn' and 'return_earned'), by the profile or any card linked to it,
--   or by the card;
-- - spend: the gross (baskets.gross_minor) of the consumer's baskets granted in the period minus
--   the line gross of the returns booked in the period (basket_returns.returned_gross_minor, by
--   the basket's consumer), for a profile also what its customer cards bought before they were
--   linked to it (since each card was registered) and those baskets' returns, as for points;
--   checkout orders do not count (a scheme earns on POS baskets only).
--   A scheme limited to outlets (outletIds) or to dates (validFromMs inclusive, validToMs
--   exclusive, the basket's Timestamp) counts only the baskets bought there and then and the
--   returns of those baskets, as its points count only where and when it earns
--   (scheme_counts_basket).
-- Answers {"<schemeId>": measure}; each read is found by its holder, scheme and time
-- (points_movements_tier_*, baskets_profile_granted, basket_returns_tier_*), so that its cost
-- follows the consumer's own history, not the merchant's. Read by the upload, the grant
-- (grant_basket), the return, the orders and the pages.
CREATE OR REPLACE FUNCTION tier_measures(p_merchant_id bigint, p_profile_id bigint,
  p_card_id bigint, p_bases json, p_time_zone text, p_now timestamptz)
RETURNS json LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_out jsonb := '{}'::jsonb;
  v_basis record;
  v_from timestamptz;
  v_measure bigint;
  v_token text;
  v_outlets bigint[];
  v_valid_from timestamptz;
  v_valid_to timestamptz;
  v_limited boolean;
BEGIN
  FOR v_basis IN SELECT * FROM json_to_recordset(p_bases)
      AS x("schemeId" bigint, measure text, "rollingDays" integer, calendar text, "outletIds" json,
        "validFromMs" bigint, "validToMs" bigint) LOOP
    IF v_basis."rollingDays" IS NOT NULL THEN
      v_from := p_now - make_interval(days => v_basis."rollingDays");
    ELSE
      v_from := date_trunc(v_basis.calendar, p_now AT TIME ZONE p_time_zone) AT TIME ZONE p_time_zone;
    END IF;
    IF v_basis.measure = 'spend' THEN
      v_outlets := CASE WHEN json_typeof(v_basis."outletIds") = 'array' THEN
        ARRAY(SELECT json_array_elements_text(v_basis."outletIds")::bigint) END;
      v_valid_from := 'epoch'::timestamptz + v_basis."validFromMs" * interval '1 millisecond';
      v_valid_to := 'epoch'::timestamptz + v_basis."validToMs" * interval '1 millisecond';
      v_limited := v_outlets IS NOT NULL OR v_valid_from IS NOT NULL OR v_valid_to IS NOT NULL;
      IF p_profile_id IS NOT NULL THEN
        SELECT COALESCE(sum(k.gross_minor), 0) INTO v_measure FROM baskets k
         WHERE k.profile_id = p_profile_id AND k.merchant_id = p_merchant_id
           AND k.granted_at >= v_from AND k.granted_at <= p_now
           AND scheme_counts_basket(k.outlet_id, k.timestamp_utc, v_outlets, v_valid_from, v_valid_to);
        SELECT v_measure - COALESCE(sum(r.returned_gross_minor), 0) INTO v_measure
          FROM basket_returns r
         WHERE r.profile_id = p_profile_id AND r.merchant_id = p_merchant_id
           AND r.created_at >= v_from AND r.created_at <= p_now
           AND (NOT v_limited OR EXISTS (SELECT 1 FROM baskets k
                 WHERE k.tracking_unit_id = r.tracking_unit_id AND k.basket_id = r.basket_id
                   AND scheme_counts_basket(k.outlet_id, k.timestamp_utc, v_outlets, v_valid_from,
                         v_valid_to)));
        -- What its customer cards bought before they were linked to it (since each was
        -- registered, no profile on the basket), and those baskets' returns, as its points count.
        SELECT v_measure + COALESCE(sum(k.gross_minor), 0) INTO v_measure
          FROM cards c JOIN baskets k ON k.merchant_id = c.merchant_id AND k.consumer_token = c.token_id
         WHERE c.profile_id = p_profile_id AND c.merchant_id = p_merchant_id AND c.token_type = 0
           AND k.profile_id IS NULL AND k.uploaded_at >= c.registered_at
           AND k.granted_at >= v_from AND k.granted_at <= p_now
           AND scheme_counts_basket(k.outlet_id, k.timestamp_utc, v_outlets, v_valid_from, v_valid_to);
        SELECT v_measure - COALESCE(sum(r.returned_gross_minor), 0) INTO v_measure
          FROM cards c JOIN basket_returns r ON r.merchant_id = c.merchant_id AND r.consumer_token = c.token_id
          JOIN baskets k ON k.tracking_unit_id = r.tracking_unit_id AND k.basket_id = r.basket_id
         WHERE c.profile_id = p_profile_id AND c.merchant_id = p_merchant_id AND c.token_type = 0
           AND r.profile_id IS NULL AND k.uploaded_at >= c.registered_at
           AND r.created_at >= v_from AND r.created_at <= p_now
           AND scheme_counts_basket(k.outlet_id, k.timestamp_utc, v_outlets, v_valid_from, v_valid_to);
      ELSE
        SELECT c.token_id INTO v_token FROM cards c WHERE c.id = p_card_id;
        SELECT COALESCE(sum(k.gross_minor), 0) INTO v_measure FROM baskets k
         WHERE k.merchant_id = p_merchant_id AND k.consumer_token = v_token
           AND k.profile_id IS NULL AND k.granted_at >= v_from AND k.granted_at <= p_now
           AND scheme_counts_basket(k.outlet_id, k.timestamp_utc, v_outlets, v_valid_from, v_valid_to);
        SELECT v_measure - COALESCE(sum(r.returned_gross_minor), 0) INTO v_measure
          FROM basket_returns r
         WHERE r.merchant_id = p_merchant_id AND r.consumer_token = v_token
           AND r.profile_id IS NULL AND r.created_at >= v_from AND r.created_at <= p_now
           AND (NOT v_limited OR EXISTS (SELECT 1 FROM baskets k
                 WHERE k.tracking_unit_id = r.tracking_unit_id AND k.basket_id = r.basket_id
                   AND scheme_counts_basket(k.outlet_id, k.timestamp_utc, v_outlets, v_valid_from,
                         v_valid_to)));
      END IF;
    ELSE
      -- The movements of the profile, of the card, and of the profile's other cards, each row
      -- once: three reads by holder, scheme and time (points_movements_tier_profile and
      -- _tier_card), not one read of all the merchant's movements in the period, which one
      -- condition joining the three with OR would be (an OR with a subquery takes no index).
      SELECT COALESCE(sum(x.points), 0) INTO v_measure FROM (
        SELECT m.points FROM points_movements m
         WHERE m.profile_id = p_profile_id AND m.scheme_id = v_basis."schemeId"
           AND m.kind IN ('earn', 'return_earned')
           AND m.created_at >= v_from AND m.created_at <= p_now
           AND m.merchant_id = p_merchant_id
        UNION ALL
        SELECT m.points FROM points_movements m
         WHERE m.card_id = p_card_id AND m.scheme_id = v_basis."schemeId"
           AND m.kind IN ('earn', 'return_earned')
           AND m.created_at >= v_from AND m.created_at <= p_now
           AND m.merchant_id = p_merchant_id
           AND (m.profile_id = p_profile_id) IS NOT TRUE
        UNION ALL
        SELECT m.points FROM cards c
          JOIN points_movements m ON m.card_id = c.id
         WHERE c.profile_id = p_profile_id AND m.scheme_id = v_basis."schemeId"
           AND m.kind IN ('earn', 'return_earned')
           AND m.created_at >= v_from AND m.created_at <= p_now
           AND m.merchant_id = p_merchant_id
           AND (m.profile_id = p_profile_id) IS NOT TRUE
           AND (m.card_id = p_card_id) IS NOT TRUE) x;
    END IF;
    v_out := v_out || jsonb_build_object(v_basis."schemeId"::text, GREATEST(v_measure, 0));
  END LOOP;
  RETURN v_out::json;
END $$;
