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
LANGUAGE plpgsql AS $$
DECLARE
  -- The order as a row of the batch, its fields set by name (the others, which only the batch's
  -- re-checks and keys read, stay NULL).
  o checkout_order_write;
BEGIN
  o.row_no := 0;
  o.client_id := p_client_id;
  o.merchant_id := p_merchant_id;
  o.now := p_now;
  o.now_text := p_now_text;
  o.reference := p_reference;
  o.otp_sha256 := p_otp_sha256;
  o.order_id := p_order_id;
  o.basket_id := p_basket_id;
  o.receipt_id := p_receipt_id;
  o.currency := p_currency;
  o.total_minor := p_total_minor;
  o.charge := p_charge;
  o.priced := p_priced;
  o.liability_id := p_liability_id;
  o.transaction_id := p_transaction_id;
  o.reservation_id := p_reservation_id;
  o.cancel_remaining := p_cancel_remaining;
  o.answer := p_answer;
  o.currency_json := p_currency_json;
  SELECT b.refusal, b.answer_text, b.event_count INTO refusal, answer_text, event_count
    FROM book_orders(ARRAY[o], ARRAY[p_profile_id], ARRAY[p_by_otp]) b;
END $$;
