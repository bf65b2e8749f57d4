-- book_order: the booking of one checkout order whose profile is known: a batch of one of
-- book_orders, the one booking of an order (docs/decisions.md, "One booking of a checkout order").
-- place_order and the order use case (src/orders/order.service.ts) call it for one order. It
-- answers as book_orders does: the refusal's error name, or the order's answer text and the
-- number of outbox messages written.
CREATE OR REPLACE FUNCTION book_order(
  p_merchant_id bigint, p_client_id bigint, p_now timestamptz, p_now_text text,
  p_profile_id bigint, p_by_otp boolean, p_otp_sha256 text, p_reference text,
  p_order_id text, p_basket_id text, p_receipt_id text, p_currency text, p_total_minor bigint,
  p_charge boolean, p_priced json, p_liability_id bigint, p_transaction_id text,
  p_reservation_id text, p_cancel_remaining boolean, p_answer text, p_currency_json text,
  OUT refusal text, OUT answer_text text, OUT event_count integer)
LANGUAGE sql AS $$
  SELECT b.refusal, b.answer_text, b.event_count
    FROM book_orders(
      ARRAY[ROW(0, p_client_id, p_merchant_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, p_now,
        p_now_text, NULL, p_reference, p_otp_sha256, p_order_id, p_basket_id, p_receipt_id,
        p_currency, p_total_minor, p_charge, p_priced, p_liability_id, p_transaction_id,
        p_reservation_id, p_cancel_remaining, p_answer, p_currency_json, NULL)::checkout_order_write],
      ARRAY[p_profile_id], ARRAY[p_by_otp]) b
$$;
