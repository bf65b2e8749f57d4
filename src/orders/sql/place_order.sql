-- place_order: a checkout order in one statement (docs/decisions.md, "Checkout v1": "Orders in one
-- statement", "Idempotency", "Balance, reservations, top-ups, refunds").
--
-- It does in the database what an order did in about fifteen round trips: re-checks what the
-- server's remembered answers said (the client live, its merchant's time zone, the menu and
-- campaigns the order was priced from; if not: 'stale', nothing done), claims the Idempotency-Key
-- (or answers the stored answer, 'in_flight' or 'reused'), resolves the profile reference (a
-- registered customer card or a live one-time password), locks the profile, and books the order:
-- the order row, the charge on the double-entry ledger through post_transfer (its guard
-- unchanged), the balance transaction, the reservation's use, the receipt, the spent one-time
-- password, one outbox message per webhook and status change (checkout_status_changed), the
-- purchase notification of an order paid from the balance, and the answer stored under the key.
--
-- A refusal books nothing and becomes the key's stored answer; its text comes from the server's
-- error catalog (p_refusals). Refusals are decided before anything is written, except that the
-- order row goes first, so that of two orders of one basketId one is refused 'orderExists' before
-- the other checks run; a refusal after it removes the row again in the same transaction. The
-- charge takes the reservation's remaining amount first, then unreserved balance, never what other
-- live reservations hold (planCharge, src/ledger/rules/checkout-rules.ts).
CREATE OR REPLACE FUNCTION place_order(
  p_client_id bigint, p_merchant_id bigint, p_time_zone text,
  p_sortiment_id bigint, p_menu_version bigint, p_menu_gen bigint, p_rules_version bigint,
  p_key text, p_request_sha256 text, p_now timestamptz, p_now_text text, p_key_ttl_ms bigint,
  p_reference text, p_otp_sha256 text,
  p_order_id text, p_basket_id text, p_receipt_id text, p_currency text, p_total_minor bigint,
  p_charge boolean, p_priced jsonb, p_liability_id bigint, p_transaction_id text,
  p_reservation_id text, p_cancel_remaining boolean, p_answer text, p_currency_json text,
  p_refusals json,
  OUT outcome text, OUT answer_status integer, OUT answer_text text, OUT event_count integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_key record;
  v_profile_id bigint;
  v_by_otp boolean := false;
  v_account_id bigint;
  v_charge_allowed boolean;
  v_balance bigint;
  v_account_currency text;
  v_res_id text;
  v_res_profile_id bigint;
  v_res_old_status text;
  v_res_expires_at timestamptz;
  v_res_remaining bigint;
  v_has_res boolean := false;
  v_reserved_live bigint;
  v_reserved_used bigint := 0;
  v_unreserved bigint;
  v_remaining bigint := 0;
  v_new_balance bigint;
  v_refusal text;
  v_balance_json text := '';
  v_res_status text;
  v_tx record;
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

  -- The profile: a registered, unexpired customer card linked to it, or a live one-time password.
  SELECT c.profile_id INTO v_profile_id FROM cards c
   WHERE c.merchant_id = p_merchant_id AND c.token_id = p_reference AND c.token_type = 0
     AND c.state = 'registered' AND c.profile_id IS NOT NULL
     AND (c.expires_at IS NULL OR c.expires_at > p_now)
   LIMIT 1;
  IF v_profile_id IS NULL THEN
    SELECT o.profile_id INTO v_profile_id FROM profile_otps o
     WHERE o.merchant_id = p_merchant_id AND o.otp_sha256 = p_otp_sha256
       AND o.expires_at > p_now AND o.spent_at IS NULL;
    v_by_otp := v_profile_id IS NOT NULL;
  END IF;

  <<booking>>
  BEGIN
    IF v_profile_id IS NULL THEN
      v_refusal := 'profileReferenceUnusable';
      EXIT booking;
    END IF;
    IF p_charge THEN
      -- Every balance change of a profile takes this lock first (docs/decisions.md,
      -- "Checkout v1: balance, reservations, top-ups, refunds").
      SELECT p.account_id, p.is_charge_allowed, a.balance_minor, btrim(a.currency)
        INTO v_account_id, v_charge_allowed, v_balance, v_account_currency
        FROM profiles p JOIN ledger_accounts a ON a.id = p.account_id
       WHERE p.merchant_id = p_merchant_id AND p.id = v_profile_id
         FOR NO KEY UPDATE;
    END IF;
    INSERT INTO checkout_orders (merchant_id, id, client_id, basket_id, profile_id, status,
      currency, total_gross_minor, charged_minor, receipt_id, priced, created_at)
    VALUES (p_merchant_id, p_order_id, p_client_id, p_basket_id, v_profile_id, 'completed',
      p_currency, p_total_minor, CASE WHEN p_charge THEN p_total_minor ELSE 0 END,
      p_receipt_id, p_priced, p_now)
    ON CONFLICT (merchant_id, basket_id) DO NOTHING;
    IF NOT FOUND THEN
      v_refusal := 'orderExists';
      EXIT booking;
    END IF;
    -- The one-time password the order spends: locked, so that no other order spends it.
    IF v_by_otp THEN
      PERFORM 1 FROM profile_otps o
       WHERE o.merchant_id = p_merchant_id AND o.otp_sha256 = p_otp_sha256
         AND o.expires_at > p_now AND o.spent_at IS NULL
         FOR UPDATE;
      IF NOT FOUND THEN
        v_refusal := 'profileReferenceUnusable';
      END IF;
    END IF;

    IF v_refusal IS NOT NULL AND NOT p_charge THEN
      DELETE FROM checkout_orders o WHERE o.id = p_order_id;
      EXIT booking;
    END IF;
    IF p_charge THEN
      -- planCharge (src/ledger/rules/checkout-rules.ts): the reservation's remaining amount
      -- first, then unreserved balance, never what other reservations hold.
      IF v_refusal IS NOT NULL THEN
        NULL;
      ELSIF v_account_id IS NULL THEN
        v_refusal := 'profileReferenceUnusable';
      ELSIF NOT v_charge_allowed THEN
        v_refusal := 'chargeNotAllowed';
      ELSIF v_account_currency <> p_currency THEN
        v_refusal := 'currencyMismatch';
      END IF;
      IF v_refusal IS NULL AND p_reservation_id IS NOT NULL THEN
        SELECT r.id, r.profile_id, r.status, r.expires_at, r.remaining_minor
          INTO v_res_id, v_res_profile_id, v_res_old_status, v_res_expires_at, v_res_remaining
          FROM checkout_reservations r
         WHERE r.merchant_id = p_merchant_id AND r.id = p_reservation_id
           FOR UPDATE;
        v_has_res := FOUND;
        IF NOT v_has_res OR v_res_profile_id <> v_profile_id OR v_res_old_status = 'cancelled'
           OR v_res_expires_at <= p_now THEN
          v_refusal := 'reservationNotUsable';
        END IF;
      END IF;
      IF v_refusal IS NULL THEN
        SELECT COALESCE(sum(r.remaining_minor), 0) INTO v_reserved_live
          FROM checkout_reservations r
         WHERE r.profile_id = v_profile_id AND r.status = 'active' AND r.expires_at > p_now;
        IF v_has_res THEN
          v_reserved_used := least(v_res_remaining, p_total_minor);
        END IF;
        v_unreserved := p_total_minor - v_reserved_used;
        IF v_unreserved > v_balance - v_reserved_live OR p_total_minor > v_balance THEN
          v_refusal := 'checkoutInsufficientBalance';
        END IF;
      END IF;
      IF v_refusal IS NULL THEN
        v_new_balance := v_balance;
        IF p_total_minor > 0 THEN
          SELECT t.balance_after_minor INTO v_new_balance
            FROM post_transfer(p_merchant_id, v_account_id, -p_total_minor,
              p_total_minor + v_reserved_live - v_reserved_used, NULL, false, NULL, NULL, p_now,
              p_currency, 'charge:' || p_order_id, 'charge', v_account_id, p_liability_id,
              p_total_minor, NULL, NULL, 'checkout', NULL, false, NULL, NULL, NULL, NULL) t;
          IF NOT FOUND THEN
            v_refusal := 'checkoutInsufficientBalance';
          END IF;
        END IF;
      END IF;
      IF v_refusal IS NOT NULL THEN
        DELETE FROM checkout_orders o WHERE o.id = p_order_id;
        EXIT booking;
      END IF;
      IF p_total_minor > 0 THEN
        INSERT INTO balance_transactions (merchant_id, id, profile_id, kind, status, amount_minor,
          currency, order_id, reservation_id, created_at, updated_at)
        VALUES (p_merchant_id, p_transaction_id, v_profile_id, 'charge', 'completed', p_total_minor,
          p_currency, p_order_id, v_res_id, p_now, p_now);
        event_count := event_count + checkout_status_changed(p_merchant_id, p_now, p_now_text,
          p_transaction_id, 'charge', 'completed', NULL, p_total_minor, p_currency, p_reference,
          p_basket_id);
      END IF;
      v_balance_json := ',"balance":{"oldAmount":' || v_balance || ',"newAmount":' || v_new_balance
        || ',"currency":' || p_currency_json;
      IF v_has_res THEN
        v_remaining := CASE WHEN p_cancel_remaining THEN 0
                            ELSE v_res_remaining - v_reserved_used END;
        v_res_status := CASE WHEN v_remaining = 0 THEN 'used' ELSE 'active' END;
        UPDATE checkout_reservations r
           SET remaining_minor = v_remaining, status = v_res_status, updated_at = p_now
         WHERE r.id = v_res_id;
        IF v_res_status <> v_res_old_status THEN
          SELECT t.id, t.status, t.amount_minor INTO v_tx FROM balance_transactions t
           WHERE t.kind = 'reservation' AND t.reservation_id = v_res_id
           LIMIT 1 FOR UPDATE;
          IF FOUND AND v_tx.status <> v_res_status THEN
            UPDATE balance_transactions t SET status = v_res_status, updated_at = p_now
             WHERE t.id = v_tx.id;
            event_count := event_count + checkout_status_changed(p_merchant_id, p_now,
              p_now_text, v_tx.id, 'reservation', v_res_status, v_tx.status, v_tx.amount_minor,
              p_currency, p_reference, p_basket_id);
          END IF;
        END IF;
        -- Holds after the charge: the others, and what this reservation still holds.
        v_balance_json := v_balance_json || ',"reservation":{"oldAmountExcludingReservation":'
          || (v_balance - v_reserved_live)
          || ',"newAmountExcludingReservation":'
          || (v_new_balance - (v_reserved_live - v_res_remaining + v_remaining))
          || ',"reservedAmountRemaining":' || v_remaining
          || ',"reservedAmountUsed":' || v_reserved_used
          || ',"unreservedAmountUsed":' || v_unreserved || '}';
      END IF;
      v_balance_json := v_balance_json || '}';
    END IF;

    INSERT INTO receipts (id, merchant_id, kind, source_ref, created_at)
    VALUES (p_receipt_id, p_merchant_id, 'checkout_order', p_order_id, p_now);
    -- An order paid from the balance sends the consumer the purchase mail (docs/decisions.md, "The
    -- purchase mail of an order paid from the balance"); the profile is a customer card's or a
    -- one-time password's, never a gift card's.
    IF p_charge AND p_total_minor > 0 THEN
      INSERT INTO outbox_messages (merchant_id, topic, payload, next_attempt_at)
      VALUES (p_merchant_id, 'purchase.notification',
        jsonb_build_object('receiptId', p_receipt_id, 'profileId', v_profile_id, 'event', 'order'),
        p_now);
      event_count := event_count + 1;
    END IF;
    IF v_by_otp THEN
      UPDATE profile_otps o SET spent_at = p_now
       WHERE o.merchant_id = p_merchant_id AND o.otp_sha256 = p_otp_sha256;
    END IF;
  END booking;

  IF v_refusal IS NULL THEN
    outcome := 'placed';
    answer_status := 200;
    answer_text := p_answer || v_balance_json || ',"status":"completed"}';
  ELSE
    outcome := 'refused';
    event_count := 0;
    answer_status := (p_refusals -> v_refusal ->> 'status')::integer;
    answer_text := p_refusals -> v_refusal ->> 'body';
    IF answer_status IS NULL OR answer_text IS NULL THEN
      RAISE EXCEPTION 'place_order: no answer for the refusal %', v_refusal;
    END IF;
  END IF;
  UPDATE checkout_idempotency_keys k
     SET status = 'done', response_status = answer_status, response_body = answer_text
   WHERE k.client_id = p_client_id AND k.key = p_key;
END $$;
