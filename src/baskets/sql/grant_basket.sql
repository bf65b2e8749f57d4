-- grant_basket: the grant of one basket in one statement (docs/decisions.md, "Grant and points
-- booking", "Basket grants are written with group commit").
--
-- It does in one round trip what the grant did in about ten: re-checks a terminal the caller took
-- from a remembered answer, locks the basket, answers a granted one with its stored response, books
-- what the caller evaluated (points earned and spent, campaign usages), makes the receipt, queues
-- the purchase notification and stores the booking. The engine stays in the service: a basket the
-- upload's rules touched comes back as 'evaluate' with the consumer's points and usages
-- (consumer_state), and is booked on the next call only if these, the consumer and the
-- basket's revision are still what the evaluation saw, checked under the consumer's lock. A basket
-- no rule touched has nothing to evaluate and is booked at once.
--
-- Rules it holds:
-- - a basket is granted once; a second grant answers the first one's response;
-- - points are spent from the oldest lots first (earliest expiry, never-expiring last) and never
--   below zero: what is not there under the lock raises, and the batch is undone;
-- - every booking is a movement of the immutable points history (docs/decisions.md, "Points
--   history"); points_lots and campaign_usages are its projection;
-- - no purchase notification for a basket bought or paid with a gift card (docs/decisions.md,
--   "Gift-card privacy and hardened pages");
-- - a unique code is redeemed once (docs/decisions.md, "Unique codes"): the basket's codes still
--   free (free_campaign_codes, locked) are part of what the evaluation saw, and the codes of the
--   campaigns it applied are claimed (claim_campaign_codes) with the booking;
-- - a status tier is part of what the evaluation saw: the consumer's tier measures of the basket's
--   schemes with tiers (tier_measures) go into the consumer's state;
-- - a campaign's budgets are never exceeded (docs/decisions.md, "Budgets"): what is left of the
--   budgets of the basket's campaigns (lock_campaign_budgets, locked) is part of what the
--   evaluation saw, and what the booking's rewards cost is added (book_campaign_budgets);
-- - a booking that changes the consumer's status tier writes its tier-change events (topic
--   'loyalty.tier_changed') in the outbox with it; the evaluation computed them on the measures
--   this call checks are still the consumer's.
-- Status: 'terminal_changed' | 'unknown' | 'granted' | 'changed' | 'evaluate' | 'booked'
-- (src/baskets/grant-write.store.ts reads them).
-- Its statements, and those of the functions it calls, keep their generic plans (plan_cache_mode,
-- docs/decisions.md "Plans kept for batches of any size"): left to choose, PostgreSQL planned some
-- of them afresh at every grant.
CREATE OR REPLACE FUNCTION grant_basket(
  p_merchant_id bigint, p_unit_id text, p_basket_id text, p_now timestamptz,
  p_redeemed boolean, p_receipt_id text, p_source_ref text,
  p_check_unit boolean, p_dev_key_id bigint, p_checksum_secret text,
  p_revision integer, p_consumer json, p_state json, p_booking json, p_grant json,
  OUT status text, OUT revision integer, OUT data json, OUT notified boolean)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  b record;
  line record;
  v_consumer json;
  v_profile bigint;
  v_card bigint;
  v_state json;
  v_receipt text;
  v_codes json;
  v_budgets json;
BEGIN
  notified := false;
  -- The terminal as the caller authenticated it, when that was a remembered answer: still
  -- bound to its DevKey and usable (terminal_refusal), the same secret, MD5 tokens allowed.
  IF p_check_unit AND NOT EXISTS (
      SELECT 1 FROM tracking_units tu
        JOIN dev_keys dk ON dk.id = tu.dev_key_id
       WHERE tu.id = p_unit_id AND tu.merchant_id = p_merchant_id AND tu.dev_key_id = p_dev_key_id
         AND terminal_refusal(dk.revoked_at, tu.id, tu.activated, tu.deactivated_at, true) IS NULL
         AND tu.checksum_secret = p_checksum_secret AND NOT tu.require_security_token_v2) THEN
    status := 'terminal_changed';
    RETURN;
  END IF;
  SELECT k.result, k.revision, k.granted_at, k.grant_result INTO b FROM baskets k
   WHERE k.tracking_unit_id = p_unit_id AND k.basket_id = p_basket_id FOR UPDATE;
  IF NOT FOUND THEN
    status := 'unknown';
    RETURN;
  END IF;
  revision := b.revision;
  IF b.granted_at IS NOT NULL AND b.grant_result IS NOT NULL THEN
    status := 'granted';
    data := b.grant_result->'response';
    RETURN;
  END IF;
  IF json_typeof(p_booking) = 'object' AND p_revision IS DISTINCT FROM b.revision THEN
    -- Uploaded again since it was evaluated: the grant starts over.
    status := 'changed';
    RETURN;
  END IF;
  -- The consumer the upload identified.
  v_consumer := COALESCE(b.result->'engine'->'consumer', 'null'::json);
  v_profile := (v_consumer->>'profileId')::bigint;
  -- No campaign or scheme touched the basket at its upload: nothing to book but the grant.
  IF json_typeof(b.result->'engine'->'inputs') = 'object' THEN
    -- The consumer who holds the points now, locked: two bookings of one consumer run one
    -- after the other (points_holder; a card linked to a profile since the upload books on it).
    SELECT h.holder_profile_id, h.holder_card_id INTO v_profile, v_card
      FROM points_holder(v_profile, (v_consumer->>'cardId')::bigint) h;
    IF v_card IS NULL AND v_consumer->>'cardId' IS NOT NULL THEN
      v_consumer := json_build_object('profileId', v_profile);
    END IF;
    IF v_profile IS NULL AND v_card IS NULL THEN
      v_state := 'null'::json;
    ELSE
      v_state := consumer_state(p_merchant_id, v_profile, v_card,
        ARRAY(SELECT (e->>'id')::bigint FROM json_array_elements(b.result->'engine'->'schemes') e),
        ARRAY(SELECT (e->>'id')::bigint FROM json_array_elements(b.result->'engine'->'campaigns') e),
        p_now);
      -- The status-tier measures of the basket's schemes with tiers, before this basket
      -- (docs/decisions.md, "Status tiers"): the tier multiplies what it earns.
      IF json_array_length(COALESCE(b.result->'engine'->'tierBases', '[]'::json)) > 0 THEN
        v_state := (v_state::jsonb || jsonb_build_object('tiers', tier_measures(p_merchant_id,
          v_profile, v_card, b.result->'engine'->'tierBases',
          b.result->'engine'->'inputs'->>'timeZone', p_now)::jsonb))::json;
      END IF;
    END IF;
    -- The basket's unique codes that no grant holds, locked until this grant commits.
    v_codes := free_campaign_codes(p_merchant_id, ARRAY(SELECT e->>'code'
      FROM json_array_elements(COALESCE(b.result->'engine'->'inputs'->'codes', '[]'::json)) e));
    -- What is left of the budgets of the basket's campaigns, locked until this grant commits.
    v_budgets := lock_campaign_budgets(p_merchant_id,
      ARRAY(SELECT (e->>'id')::bigint FROM json_array_elements(b.result->'engine'->'campaigns') e),
      p_now);
    IF json_typeof(p_booking) IS DISTINCT FROM 'object'
       OR COALESCE(p_consumer, 'null'::json)::jsonb <> v_consumer::jsonb
       OR COALESCE(p_state, 'null'::json)::jsonb <> v_state::jsonb
       OR COALESCE(p_booking->'codesSeen', '[]'::json)::jsonb <> v_codes::jsonb
       OR COALESCE(p_booking->'budgetsSeen', '[]'::json)::jsonb <> v_budgets::jsonb THEN
      -- To be evaluated (again) on what holds now. The body only for a basket stored
      -- before its parsed form was (docs/decisions.md "The parsed basket is stored versioned").
      status := 'evaluate';
      data := json_build_object('result', b.result, 'consumer', v_consumer, 'state', v_state,
        'codes', v_codes, 'budgets', v_budgets,
        'body', CASE WHEN b.result->'basket' IS NULL THEN
          (SELECT k.body FROM baskets k WHERE k.tracking_unit_id = p_unit_id AND k.basket_id = p_basket_id)
        END);
      RETURN;
    END IF;
    -- Per scheme: the points the basket earns first, then the spent ones from the oldest
    -- lots (earliest expiry first, never-expiring last), this basket's own last.
    FOR line IN SELECT * FROM json_to_recordset(p_booking->'loyalty')
        AS x("schemeId" bigint, earned integer, spent integer, "expiresAt" timestamptz) LOOP
      PERFORM add_points_lot(p_merchant_id, line."schemeId", v_profile, v_card, line.earned,
        p_now, line."expiresAt", 'earn', p_unit_id, p_basket_id, NULL);
      IF take_points(p_merchant_id, line."schemeId", v_profile, v_card, GREATEST(line.spent, 0),
          p_now, 'spend', p_unit_id, p_basket_id, NULL, false) < GREATEST(line.spent, 0) THEN
        RAISE EXCEPTION 'points to spend are not there under the lock';
      END IF;
    END LOOP;
    -- The usages the grant counts: the projection row and its immutable use.
    INSERT INTO campaign_usages (merchant_id, tracking_unit_id, basket_id, campaign_id,
      profile_id, card_id, used, created_at)
    SELECT p_merchant_id, p_unit_id, p_basket_id, u."campaignId", v_profile, v_card, u.count, p_now
      FROM ROWS FROM (json_to_recordset(p_booking->'usages') AS ("campaignId" bigint, count integer))
           WITH ORDINALITY AS u("campaignId", count, n)
     WHERE u.count > 0 ORDER BY u.n;
    INSERT INTO campaign_usage_movements (merchant_id, tracking_unit_id, basket_id, campaign_id,
      profile_id, card_id, kind, count, return_id, link_card_id, created_at)
    SELECT p_merchant_id, p_unit_id, p_basket_id, u."campaignId", v_profile, v_card, 'use', u.count,
           NULL, NULL, p_now
      FROM ROWS FROM (json_to_recordset(p_booking->'usages') AS ("campaignId" bigint, count integer))
           WITH ORDINALITY AS u("campaignId", count, n)
     WHERE u.count > 0 ORDER BY u.n;
    -- The codes of the campaigns the booking applies, redeemed by this basket.
    IF json_array_length(COALESCE(p_booking->'codes', '[]'::json)) > 0 THEN
      PERFORM claim_campaign_codes(p_merchant_id, p_unit_id, p_basket_id,
        (b.result->'engine'->'inputs'->>'outletId')::bigint,
        ARRAY(SELECT json_array_elements_text(p_booking->'codes')), p_now);
    END IF;
    -- What the booking's rewards cost of their campaigns' budgets.
    IF json_array_length(COALESCE(p_booking->'budgets', '[]'::json)) > 0 THEN
      PERFORM book_campaign_budgets(p_merchant_id, p_unit_id, p_basket_id, p_booking->'budgets', p_now);
    END IF;
    -- The tier changes the evaluation found on the measures it saw (docs/decisions.md, "Status
    -- tiers", "Tier-change events"): one outbox event each, with the booking.
    IF json_array_length(COALESCE(p_booking->'tierChanges', '[]'::json)) > 0 THEN
      INSERT INTO outbox_messages (merchant_id, topic, payload, next_attempt_at, created_at)
      SELECT p_merchant_id, 'loyalty.tier_changed', e::jsonb, p_now, p_now
        FROM json_array_elements(p_booking->'tierChanges') e;
      notified := true;
    END IF;
  END IF;
  -- Every granted basket gets its receipt, made once (docs/decisions.md "Receipts").
  v_receipt := make_receipt(p_receipt_id, p_merchant_id, 'pos_basket', p_source_ref, p_now);
  -- A consumer known by profile is notified (the payload of a purchase notification), but
  -- never of a basket bought or paid with a gift card.
  IF b.result->>'giftCard' IS NULL THEN
    notified := queue_purchase_notification(p_merchant_id, v_receipt, v_profile, 'grant', p_now)
      OR notified;
  END IF;
  -- The response as the caller wrote it (a second grant answers it, in XML in the order of
  -- its fields); the booking's consumer is this one (the evaluated booking names it already).
  UPDATE baskets k SET granted_at = p_now, redeemed_in_pos = p_redeemed,
    grant_result = json_build_object(
      'response', p_grant->'response',
      'booking', CASE WHEN json_typeof(p_booking) = 'object' THEN p_grant->'booking'
        ELSE jsonb_set((p_grant->'booking')::jsonb, '{consumer}', v_consumer::jsonb)::json END,
      'receiptId', v_receipt)
   WHERE k.tracking_unit_id = p_unit_id AND k.basket_id = p_basket_id;
  status := 'booked';
  data := p_grant->'response';
END $$;
