-- checkout_status_changed: the transaction.status.changed webhook events of one status change of a
-- balance transaction, one outbox message per live webhook (docs/decisions.md, "Checkout v1":
-- "Webhooks"). Answers how many it wrote.
--
-- The one writer of these events, for the order statements (place_order, place_orders) and the
-- checkout use cases alike (src/orders/balance.store.ts). Rules it holds:
-- - an opaque message id: 'msg_' and 24 random base32 characters (random_base32), never the
--   outbox row's sequential id, which would show a merchant's volume;
-- - 'sequence': the number of the event within its balance transaction, 1 for its first status,
--   one more for each change, so that a receiver orders them whatever the order of delivery;
-- - the same profileReference and basketId on every event of a transaction: the first event that
--   names them keeps them on the transaction; a refund takes the reference of its order's charge.
-- - on a refund, 'refundableAmount': what the order's further refunds may still give back
--   (p_refundable_minor; absent when null).
-- Without a live webhook (webhook_subscribed) it writes nothing and counts no sequence. The payload
-- is built here only.
CREATE OR REPLACE FUNCTION checkout_status_changed(
  p_merchant_id bigint, p_now timestamptz, p_now_text text, p_transaction_id text, p_kind text,
  p_status text, p_previous_status text, p_amount_minor bigint, p_currency text,
  p_profile_reference text, p_basket_id text, p_refundable_minor bigint DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  written integer;
  v_sequence integer := 1;
  v_reference text := p_profile_reference;
  v_basket_id text := p_basket_id;
  v_order_id text;
BEGIN
  IF NOT webhook_subscribed(ARRAY[p_merchant_id], 'transaction.status.changed') THEN
    RETURN 0;
  END IF;
  UPDATE balance_transactions t
     SET event_sequence = t.event_sequence + 1,
         event_profile_reference = COALESCE(t.event_profile_reference, p_profile_reference),
         event_basket_id = COALESCE(t.event_basket_id, p_basket_id)
   WHERE t.id = p_transaction_id
  RETURNING t.event_sequence, t.event_profile_reference, t.event_basket_id, t.order_id
    INTO v_sequence, v_reference, v_basket_id, v_order_id;
  IF NOT FOUND THEN
    v_sequence := 1;
    v_reference := p_profile_reference;
    v_basket_id := p_basket_id;
  END IF;
  IF v_reference IS NULL AND v_order_id IS NOT NULL THEN
    SELECT o.event_profile_reference INTO v_reference FROM balance_transactions o
     WHERE o.order_id = v_order_id AND o.event_profile_reference IS NOT NULL
     ORDER BY o.created_at LIMIT 1;
    UPDATE balance_transactions t SET event_profile_reference = v_reference
     WHERE t.id = p_transaction_id AND v_reference IS NOT NULL;
  END IF;
  INSERT INTO outbox_messages (merchant_id, topic, payload, next_attempt_at, created_at)
  SELECT p_merchant_id, 'webhook.delivery',
    jsonb_build_object('webhookId', w.id, 'messageId', 'msg_' || random_base32(24),
      'body', jsonb_build_object(
      'type', 'transaction.status.changed', 'timestamp', p_now_text, 'data', jsonb_build_object(
        'transactionId', p_transaction_id, 'sequence', v_sequence, 'kind', p_kind,
        'status', p_status, 'previousStatus', p_previous_status, 'amount', p_amount_minor,
        'currency', p_currency, 'profileReference', v_reference, 'basketId', v_basket_id)
        || CASE WHEN p_refundable_minor IS NULL THEN '{}'::jsonb
                ELSE jsonb_build_object('refundableAmount', p_refundable_minor) END)),
    p_now, p_now
  FROM webhooks w
  WHERE w.merchant_id = p_merchant_id AND w.event = 'transaction.status.changed'
    AND w.deleted_at IS NULL;
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END $$;
