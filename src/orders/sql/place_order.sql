-- place_order: a checkout order in one statement (docs/decisions.md, "Checkout v1": "Orders in one
-- statement", "Idempotency", "Balance, reservations, top-ups, refunds").
--
-- It does in the database what an order did in about fifteen round trips: re-checks what the
-- server's remembered answers said (the client live, its merchant's time zone, the menu and
-- campaigns the order was priced from; if not: 'stale', nothing done), claims the Idempotency-Key
-- (or answers the stored answer, 'in_flight' or 'reused'), resolves the profile reference
-- (resolve_profile_reference), books the order (book_order: the profile's lock, the order row, the
-- charge plan, the charge through post_transfers, the balance transaction, the reservation's use,
-- the receipt, the spent one-time password, the status events) and stores the answer under the key.
--
-- A refusal books nothing and becomes the key's stored answer; its text comes from the server's
-- error catalog (p_refusals) and names the request (p_request_id; order_refusal).
CREATE OR REPLACE FUNCTION place_order(
  p_client_id bigint, p_merchant_id bigint, p_time_zone text,
  p_sortiment_id bigint, p_menu_version bigint, p_menu_gen bigint, p_rules_version bigint,
  p_key text, p_request_sha256 text, p_now timestamptz, p_now_text text, p_key_ttl_ms bigint,
  p_reference text, p_otp_sha256 text,
  p_order_id text, p_basket_id text, p_receipt_id text, p_currency text, p_total_minor bigint,
  p_charge boolean, p_priced json, p_liability_id bigint, p_transaction_id text,
  p_reservation_id text, p_cancel_remaining boolean, p_answer text, p_currency_json text,
  p_refusals json, p_request_id text,
  OUT outcome text, OUT answer_status integer, OUT answer_text text, OUT event_count integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_key record;
  v_profile_id bigint;
  v_by_otp boolean;
  v_refusal text;
  v_attempt integer := 0;
BEGIN
  event_count := 0;
  -- What the server's remembered answers said, as it is now; if not, nothing is done and the
  -- server starts over from a fresh lookup.
  IF NOT EXISTS (
      SELECT 1 FROM checkout_clients c JOIN merchants m ON m.id = c.merchant_id
       WHERE c.id = p_client_id AND c.merchant_id = p_merchant_id AND c.revoked_at IS NULL
         AND m.time_zone = p_time_zone
         AND (p_sortiment_id IS NULL OR (m.rules_version = p_rules_version AND EXISTS (
           SELECT 1 FROM sortiments s
            WHERE s.id = p_sortiment_id AND s.merchant_id = m.id
              AND s.version = p_menu_version AND s.current_gen = p_menu_gen)))) THEN
    outcome := 'stale';
    RETURN;
  END IF;

  -- The Idempotency-Key. A transaction working on the same key holds its lock: in flight.
  IF NOT pg_try_advisory_xact_lock(hashtextextended(p_client_id::text || ':' || p_key, 15)) THEN
    outcome := 'in_flight';
    RETURN;
  END IF;
  LOOP
    INSERT INTO checkout_idempotency_keys (client_id, key, request_sha256, status,
      response_status, response_body, created_at, expires_at)
    VALUES (p_client_id, p_key, p_request_sha256, 'in_flight', NULL, NULL, p_now,
      p_now + p_key_ttl_ms * interval '1 millisecond')
    ON CONFLICT (client_id, key) DO NOTHING;
    EXIT WHEN FOUND;
    v_attempt := v_attempt + 1;
    IF v_attempt > 2 THEN
      outcome := 'in_flight';
      RETURN;
    END IF;
    SELECT k.request_sha256, k.status, k.response_status, k.response_body, k.expires_at
      INTO v_key FROM checkout_idempotency_keys k
     WHERE k.client_id = p_client_id AND k.key = p_key;
    CONTINUE WHEN NOT FOUND;
    IF v_key.expires_at <= p_now THEN
      -- Older than its 24 hours: the key is free again.
      DELETE FROM checkout_idempotency_keys k
       WHERE k.client_id = p_client_id AND k.key = p_key AND k.expires_at <= p_now;
      CONTINUE;
    END IF;
    IF v_key.request_sha256 <> p_request_sha256 THEN
      outcome := 'reused';
    ELSIF v_key.status = 'in_flight' OR v_key.response_status IS NULL OR v_key.response_body IS NULL THEN
      outcome := 'in_flight';
    ELSE
      outcome := 'replay';
      answer_status := v_key.response_status;
      answer_text := v_key.response_body;
    END IF;
    RETURN;
  END LOOP;

  -- The profile (resolve_profile_reference), and the order's booking (book_order).
  SELECT r.profile_id, r.by_otp INTO v_profile_id, v_by_otp
    FROM resolve_profile_reference(p_merchant_id, p_reference, p_otp_sha256, p_now) r;
  SELECT b.refusal, b.answer_text, b.event_count INTO v_refusal, answer_text, event_count
    FROM book_order(p_merchant_id, p_client_id, p_now, p_now_text, v_profile_id,
      coalesce(v_by_otp, false), p_otp_sha256, p_reference, p_order_id, p_basket_id, p_receipt_id,
      p_currency, p_total_minor, p_charge, p_priced, p_liability_id, p_transaction_id,
      p_reservation_id, p_cancel_remaining, p_answer, p_currency_json) b;

  IF v_refusal IS NULL THEN
    outcome := 'placed';
    answer_status := 200;
  ELSE
    outcome := 'refused';
    event_count := 0;
    SELECT x.status, x.body INTO answer_status, answer_text
      FROM order_refusal(p_refusals, v_refusal, p_request_id) x;
  END IF;
  UPDATE checkout_idempotency_keys k
     SET status = 'done', response_status = answer_status, response_body = answer_text
   WHERE k.client_id = p_client_id AND k.key = p_key;
END $$;
