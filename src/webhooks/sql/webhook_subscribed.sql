-- webhook_subscribed: whether any of the merchants has a live webhook for the event
-- (docs/decisions.md, "Webhooks"). The one test of who is told: checkout_status_changed writes its
-- deliveries only for a merchant subscribed, and a checkout booking (book_orders) asks once for its
-- whole batch before it writes any status event. A plain SQL expression, so that PostgreSQL
-- inlines it where it is called.
CREATE OR REPLACE FUNCTION webhook_subscribed(p_merchant_id bigint[], p_event text)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM webhooks w
                  WHERE w.merchant_id = ANY (p_merchant_id) AND w.event = p_event
                    AND w.deleted_at IS NULL)
$$;
