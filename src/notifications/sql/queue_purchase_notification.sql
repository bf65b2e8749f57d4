-- queue_purchase_notification: a purchase notification queued in the caller's transaction
-- (docs/decisions.md, "Notifications, receipts and the consumer portal", "Who is notified"; "The
-- purchase mail of an order paid from the balance").
--
-- The one place the outbox message of a purchase mail and push is written: the grant
-- (grant_basket), the order (book_order), the return and the refund (queueNotification,
-- src/notifications/purchase-notification.ts) call it. Topic 'purchase.notification', payload ids
-- only (the receipt, the profile, the event: grant, return, order or refund); the handler reads the
-- rest when it sends. Only a consumer known by profile can be reached, and only one with somewhere
-- to send to: a mail address or a browser subscribed to push. A profile with neither queues nothing
-- (most consumers of a busy till: nothing to send, so no message to dispatch). The consumer's
-- switches are read when sending, not here. Whether to notify at all (never for a gift card's
-- purchase) is the caller's decision. Answers whether it queued one.
CREATE OR REPLACE FUNCTION queue_purchase_notification(p_merchant_id bigint, p_receipt_id text,
  p_profile_id bigint, p_event text, p_now timestamptz)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF p_profile_id IS NULL THEN
    RETURN false;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM profiles WHERE id = p_profile_id AND email IS NOT NULL)
     AND NOT EXISTS (SELECT 1 FROM push_subscriptions WHERE profile_id = p_profile_id) THEN
    RETURN false;
  END IF;
  INSERT INTO outbox_messages (merchant_id, topic, payload, next_attempt_at)
  VALUES (p_merchant_id, 'purchase.notification',
    jsonb_build_object('receiptId', p_receipt_id, 'profileId', p_profile_id, 'event', p_event), p_now);
  RETURN true;
END $$;
