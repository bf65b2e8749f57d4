-- order_state: a checkout order's state as the checkout interface reads it back and the portal
-- lists, filters and counts it (docs/decisions.md, "Reading back, lists and partial refunds"):
-- `refunded` once refunded whole, `partially_refunded` once a refund gave part of the charge back,
-- else `completed`. The rule's one home: every reader selects it, the portal's state filter
-- compares it. SQL, immutable: the planner inlines it into the query that reads it.
CREATE OR REPLACE FUNCTION order_state(status text, refunded_minor bigint) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN status = 'refunded' THEN 'refunded'
    WHEN refunded_minor > 0 THEN 'partially_refunded'
    ELSE 'completed'
  END
$$;
