-- basket_terminal_current: whether an upload may still be written as the server checked it
-- (docs/decisions.md, "Basket uploads are written with group commit"): the terminal is still the
-- DevKey's, in the merchant's outlet with the sortiment the server read, may act
-- (terminal_refusal), and the merchant's rules are those the server evaluated. The one test of
-- the upload's write, for a batch's new baskets (write_baskets) and for each other row
-- (write_basket). One row when the terminal is current, none when not; its callers ask
-- `EXISTS (SELECT FROM basket_terminal_current(...))`.
--
-- A set-returning SQL function of one SELECT, so that PostgreSQL inlines it into the calling
-- statement, which is planned once per connection. As a function answering a boolean it could
-- not be inlined (its expression held a subquery): every call parsed, planned and started its
-- own query, once per row of a batch (docs/performance.md, "The terminal's check
-- inlined, the bill number a column").
CREATE OR REPLACE FUNCTION basket_terminal_current(p_unit_id text, p_dev_key_id bigint,
  p_merchant_id bigint, p_outlet_id bigint, p_sortiment_id bigint, p_rules_version bigint)
RETURNS SETOF boolean LANGUAGE sql STABLE AS $$
  SELECT true FROM tracking_units tu
    JOIN merchants m ON m.id = tu.merchant_id
    JOIN dev_keys dk ON dk.id = tu.dev_key_id
   WHERE tu.id = p_unit_id AND tu.dev_key_id = p_dev_key_id
     AND terminal_refusal(dk.revoked_at, tu.id, tu.activated, tu.deactivated_at, true) IS NULL
     AND tu.merchant_id = p_merchant_id AND tu.outlet_id = p_outlet_id
     AND tu.sortiment_id IS NOT DISTINCT FROM p_sortiment_id
     AND m.rules_version = p_rules_version
$$;
