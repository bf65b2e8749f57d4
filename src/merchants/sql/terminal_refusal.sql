-- terminal_refusal: whether a till's terminal may act, and if not, why (docs/decisions.md,
-- "SecurityTokens and credentials"; docs/architecture.md, "Where each rule lives").
--
-- The one rule, over the columns of the DevKey and of the terminal it registered (the terminal's
-- columns null when the key did not register it): a revoked DevKey, an unknown terminal, a
-- deactivated one, or, where the operation needs it, one the merchant has not activated is
-- refused. Answers the refusal's catalog code, or NULL when the terminal may act. The fresh lookup
-- of the service (src/merchants/terminal.store.ts) answers the refusal from it; the writes that
-- start from a remembered terminal (write_basket, grant_basket, post_transfer) re-check it with
-- the same call. A plain SQL expression, so the planner inlines it where it is called.
CREATE OR REPLACE FUNCTION terminal_refusal(p_key_revoked_at timestamptz, p_unit_id text,
  p_activated boolean, p_deactivated_at timestamptz, p_require_active boolean)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_key_revoked_at IS NOT NULL THEN 'devKeyRevoked'
    WHEN p_unit_id IS NULL THEN 'trackingUnitInvalid'
    WHEN p_deactivated_at IS NOT NULL THEN 'trackingUnitDeactivated'
    WHEN p_require_active AND p_activated IS NOT TRUE THEN 'trackingUnitInactive'
  END
$$;
