-- book_order: the booking of one checkout order whose profile is known (docs/decisions.md,
-- "Checkout v1": "Orders in one statement", "Balance, reservations, top-ups, refunds"). The one
-- booking of an order: place_order and place_orders call it for the orders they write, and the
-- order use case (src/orders/order.service.ts) calls it for an order it prices afresh.
--
-- It books, in this order: the profile's lock (every balance change of a profile takes it first),
-- the order row (a basketId ordered before: 'orderExists'), the one-time password the order spends
-- (locked, so that no other order spends it), the charge plan, the charge on the double-entry
-- ledger through post_transfer (its guard unchanged), the balance transaction and its status event
-- (checkout_status_changed), the reservation's use and its status event, the receipt, the purchase
-- mail of an order paid from the balance and the spent one-time password. It answers the order's
-- answer text: p_answer (the answer up to its `vats`, without the closing brace), the balance
-- movement and the status.
--
-- The charge plan: the profile must allow charges ('chargeNotAllowed') in the order's currency
-- ('currencyMismatch'); a reservation must be the profile's, not cancelled and not expired
-- ('reservationNotUsable'); the charge takes the reservation's remaining amount first, then
-- unreserved balance, never what other live reservations hold ('checkoutInsufficientBalance').
--
-- A refusal books nothing: it is decided before anything but the order row is written, and the
-- order row is removed again; refusal names the error, answer_text is null, event_count 0.
CREATE OR REPLACE FUNCTION book_order(
  p_merchant_id bigint, p_client_id bigint, p_now timestamptz, p_now_text text,
  p_profile_id bigint, p_by_otp boolean, p_otp_sha256 text, p_reference text,
  p_order_id text, p_basket_id text, p_receipt_id text, p_currency text, p_total_minor bigint,
  p_charge boolean, p_priced jsonb, p_liability_id bigint, p_transaction_id text,
  p_reservation_id text, p_cancel_remaining boolean, p_answer text, p_currency_json text,
  OUT refusal text, OUT answer_text text, OUT event_count integer)
LANGUAGE plpgsql AS $$
DECLARE
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
  v_balance_json text := '';
  v_res_status text;
  v_tx record;
BEGIN
  event_count := 0;
  <<booking>>
  BEGIN
    IF p_profile_id IS NULL THEN
      refusal := 'profileReferenceUnusable';
      EXIT booking;
    END IF;
    IF p_charge THEN
      SELECT p.account_id, p.is_charge_allowed, a.balance_minor, btrim(a.currency)
        INTO v_account_id, v_charge_allowed, v_balance, v_account_currency
        FROM profiles p JOIN ledger_accounts a ON a.id = p.account_id
       WHERE p.merchant_id = p_merchant_id AND p.id = p_profile_id
         FOR NO KEY UPDATE;
    END IF;
    INSERT INTO checkout_orders (merchant_id, id, client_id, basket_id, profile_id, status,
      currency, total_gross_minor, charged_minor, receipt_id, priced, created_at)
    VALUES (p_merchant_id, p_order_id, p_client_id, p_basket_id, p_profile_id, 'completed',
      p_currency, p_total_minor, CASE WHEN p_charge THEN p_total_minor ELSE 0 END,
      p_receipt_id, p_priced, p_now)
    ON CONFLICT (merchant_id, basket_id) DO NOTHING;
    IF NOT FOUND THEN
      refusal := 'orderExists';
      EXIT booking;
    END IF;
    IF p_by_otp THEN
      PERFORM 1 FROM profile_otps o
       WHERE o.merchant_id = p_merchant_id AND o.otp_sha256 = p_otp_sha256
         AND o.expires_at > p_now AND o.spent_at IS NULL
         FOR UPDATE;
      IF NOT FOUND THEN
        refusal := 'profileReferenceUnusable';
      END IF;
    END IF;

    IF p_charge AND refusal IS NULL THEN
      IF v_account_id IS NULL THEN
        refusal := 'profileReferenceUnusable';
      ELSIF NOT v_charge_allowed THEN
        refusal := 'chargeNotAllowed';
      ELSIF v_account_currency <> p_currency THEN
        refusal := 'currencyMismatch';
      END IF;
      IF refusal IS NULL AND p_reservation_id IS NOT NULL THEN
        SELECT r.id, r.profile_id, r.status, r.expires_at, r.remaining_minor
          INTO v_res_id, v_res_profile_id, v_res_old_status, v_res_expires_at, v_res_remaining
          FROM checkout_reservations r
         WHERE r.merchant_id = p_merchant_id AND r.id = p_reservation_id
           FOR UPDATE;
        v_has_res := FOUND;
        IF NOT v_has_res OR v_res_profile_id <> p_profile_id OR v_res_old_status = 'cancelled'
           OR v_res_expires_at <= p_now THEN
          refusal := 'reservationNotUsable';
        END IF;
      END IF;
      IF refusal IS NULL THEN
        SELECT COALESCE(sum(r.remaining_minor), 0) INTO v_reserved_live
          FROM checkout_reservations r
         WHERE r.profile_id = p_profile_id AND r.status = 'active' AND r.expires_at > p_now;
        IF v_has_res THEN
          v_reserved_used := least(v_res_remaining, p_total_minor);
        END IF;
        v_unreserved := p_total_minor - v_reserved_used;
        IF v_unreserved > v_balance - v_reserved_live OR p_total_minor > v_balance THEN
          refusal := 'checkoutInsufficientBalance';
        END IF;
      END IF;
      IF refusal IS NULL THEN
        v_new_balance := v_balance;
        IF p_total_minor > 0 THEN
          -- After the charge the account must still cover every other live hold.
          SELECT t.balance_after_minor INTO v_new_balance
            FROM post_transfer(p_merchant_id, v_account_id, -p_total_minor,
              p_total_minor + v_reserved_live - v_reserved_used, NULL, false, NULL, NULL, p_now,
              p_currency, 'charge:' || p_order_id, 'charge', v_account_id, p_liability_id,
              p_total_minor, NULL, NULL, 'checkout', NULL, false, NULL, NULL, NULL, NULL) t;
          IF NOT FOUND THEN
            refusal := 'checkoutInsufficientBalance';
          END IF;
        END IF;
      END IF;
    END IF;
    IF refusal IS NOT NULL THEN
      DELETE FROM checkout_orders o WHERE o.id = p_order_id;
      EXIT booking;
    END IF;

    IF p_charge THEN
      IF p_total_minor > 0 THEN
        INSERT INTO balance_transactions (merchant_id, id, profile_id, kind, status, amount_minor,
          currency, order_id, reservation_id, created_at, updated_at)
        VALUES (p_merchant_id, p_transaction_id, p_profile_id, 'charge', 'completed', p_total_minor,
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

    PERFORM make_receipt(p_receipt_id, p_merchant_id, 'checkout_order', p_order_id, p_now);
    -- An order paid from the balance sends the consumer the purchase mail (docs/decisions.md, "The
    -- purchase mail of an order paid from the balance"); the profile is a customer card's or a
    -- one-time password's, never a gift card's.
    IF p_charge AND p_total_minor > 0
       AND queue_purchase_notification(p_merchant_id, p_receipt_id, p_profile_id, 'order', p_now) THEN
      event_count := event_count + 1;
    END IF;
    IF p_by_otp THEN
      UPDATE profile_otps o SET spent_at = p_now
       WHERE o.merchant_id = p_merchant_id AND o.otp_sha256 = p_otp_sha256;
    END IF;
  END booking;

  IF refusal IS NULL THEN
    answer_text := p_answer || v_balance_json || ',"status":"completed"}';
  ELSE
    event_count := 0;
  END IF;
END $$;
