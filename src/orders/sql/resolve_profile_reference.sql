-- resolve_profile_reference: the profile a checkout profileReference names (docs/decisions.md,
-- "Checkout v1": "Balance, reservations, top-ups, refunds"): a registered, unexpired customer card
-- linked to a profile, or else a live (unexpired, unspent) one-time password, given as the
-- SHA-256 of the reference. by_otp says which: an order spends the one-time password it used.
-- No row: the reference names no usable profile (profile_reference_unusable).
--
-- One statement in SQL, so that a caller's query takes it in as a subquery (a call per order of a
-- batch costs more than the lookups). The one home of the rule, for the order statements
-- (place_order, place_orders) and the checkout use cases alike (src/orders/balance.store.ts).
CREATE OR REPLACE FUNCTION resolve_profile_reference(
  p_merchant_id bigint, p_reference text, p_otp_sha256 text, p_now timestamptz)
RETURNS TABLE (profile_id bigint, by_otp boolean) LANGUAGE sql STABLE AS $$
  SELECT x.profile_id, x.by_otp
    FROM ((SELECT c.profile_id, false AS by_otp FROM cards c
            WHERE c.merchant_id = p_merchant_id AND c.token_id = p_reference AND c.token_type = 0
              AND c.state = 'registered' AND c.profile_id IS NOT NULL
              AND (c.expires_at IS NULL OR c.expires_at > p_now)
            LIMIT 1)
          UNION ALL
          (SELECT o.profile_id, true AS by_otp FROM profile_otps o
            WHERE o.merchant_id = p_merchant_id AND o.otp_sha256 = p_otp_sha256
              AND o.expires_at > p_now AND o.spent_at IS NULL
            LIMIT 1)) x
   ORDER BY x.by_otp
   LIMIT 1
$$;
