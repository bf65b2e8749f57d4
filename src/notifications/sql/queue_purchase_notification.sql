-- queue_purchase_notification: one purchase notification queued in the caller's transaction, a
-- batch of one of queue_purchase_notifications, which holds the rule (who can be reached, the
-- message). The grant (grant_basket) and the service (queueNotification,
-- src/notifications/purchase-notification.store.ts: the return and the refund) call it. Answers
-- whether it queued one.
CREATE OR REPLACE FUNCTION queue_purchase_notification(p_merchant_id bigint, p_receipt_id text,
  p_profile_id bigint, p_event text, p_now timestamptz)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM queue_purchase_notifications(ARRAY[p_merchant_id], ARRAY[p_receipt_id],
    ARRAY[p_profile_id], p_event, ARRAY[p_now]));
END $$;
