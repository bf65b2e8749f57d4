-- queue_purchase_notifications: purchase notifications queued in the caller's transaction
-- (docs/decisions.md, "Notifications, receipts and the consumer portal", "Who is notified"; "The
-- purchase mail of an order paid from the balance").
--
-- The one place the outbox message of a purchase mail and push is written: a checkout booking
-- queues its orders' notifications here in one call (book_orders), and queue_purchase_notification
-- (the grant, the return and the refund) queues a batch of one. Topic 'purchase.notification',
-- payload ids only (the receipt, the profile, the event: grant, return, order or refund); the
-- handler reads the rest when it sends. Only a consumer known by profile can be reached, and only
-- one with somewhere to send to: a mail address or a browser subscribed to push. A profile with
-- neither queues nothing (most consumers of a busy till: nothing to send, so no message to
-- dispatch). The consumer's switches are read when sending, not here. Whether to notify at all
-- (never for a gift card's purchase) is the caller's decision. The messages are written in the
-- order of the input; answers the positions (from 1) of the inputs that queued one.
CREATE OR REPLACE FUNCTION queue_purchase_notifications(p_merchant_id bigint[], p_receipt_id text[],
  p_profile_id bigint[], p_event text, p_now timestamptz[])
RETURNS TABLE (ord integer) LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    WITH due AS MATERIALIZED (
      SELECT u.ord::integer AS ord, u.merchant_id, u.receipt_id, u.profile_id, u.at
        FROM unnest(p_merchant_id, p_receipt_id, p_profile_id, p_now) WITH ORDINALITY
               AS u(merchant_id, receipt_id, profile_id, at, ord)
       WHERE u.profile_id IS NOT NULL
         AND (EXISTS (SELECT 1 FROM profiles p WHERE p.id = u.profile_id AND p.email IS NOT NULL)
              OR EXISTS (SELECT 1 FROM push_subscriptions s WHERE s.profile_id = u.profile_id))),
    queued AS (
      INSERT INTO outbox_messages (merchant_id, topic, payload, next_attempt_at, created_at)
      SELECT d.merchant_id, 'purchase.notification',
             jsonb_build_object('receiptId', d.receipt_id, 'profileId', d.profile_id, 'event', p_event),
             d.at, d.at
        FROM due d
       ORDER BY d.ord)
    SELECT d.ord FROM due d ORDER BY d.ord;
END $$;
