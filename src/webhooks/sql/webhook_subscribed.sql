-- webhook_subscribed: whether any of the merchants has a live webhook for the event
-- (docs/decisions.md, "Webhooks"). The one test of who is told: checkout_status_changed writes its
-- deliveries only for a merchant subscribed, and a checkout booking (book_orders) asks once for its
-- whole batch before it writes any status event. PL/pgSQL, so that its statement is planned once
-- per connection: as a SQL function it was never inlined (PostgreSQL does not inline a function
-- whose expression holds a subquery) and was planned afresh on every call, about a hundredth of a
-- batch of orders' work in the database (docs/performance.md, "An index entry and a conflict check
-- less per order").
CREATE OR REPLACE FUNCTION webhook_subscribed(p_merchant_id bigint[], p_event text)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM webhooks w
                  WHERE w.merchant_id = ANY (p_merchant_id) AND w.event = p_event
                    AND w.deleted_at IS NULL);
END $$;
