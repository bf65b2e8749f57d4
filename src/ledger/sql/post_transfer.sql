-- post_transfer: a top-up, withdrawal, charge or refund on the double-entry ledger in one statement
-- (docs/decisions.md, "Cards and balances", "SecurityTokens and credentials", "Balance,
-- reservations, top-ups, refunds").
--
-- The posting itself is post_transfers' (a batch of one): the conditional UPDATE of the customer
-- account is the race-free balance check, the balance never below the floor the caller gives (nor
-- above a profile's maximum), and the INSERT of the immutable transfer reads the new balance from
-- it. Before that it re-checks what a remembered answer said: the terminal (bound to its DevKey,
-- the key not revoked, active, the same secret and settings; if not: transfer id 0 and nothing
-- booked, the caller authenticates afresh) and the card (registered, unexpired, still paying from
-- that account). A withdrawal from a profile's account
-- takes the profile's lock first, as every checkout change of the profile does, and leaves what
-- its live checkout reservations hold: refused for that alone, it answers transfer id -1.
-- No row back: the guard did not hold, nothing is booked.
CREATE OR REPLACE FUNCTION post_transfer(
  p_merchant_id bigint, p_account_id bigint, p_delta_minor bigint, p_min_balance_minor bigint,
  p_max_balance_minor bigint, p_check_card boolean, p_card_id bigint, p_liability_id bigint,
  p_now timestamptz, p_currency text, p_transaction_id text, p_kind text, p_debit_id bigint,
  p_credit_id bigint, p_amount_minor bigint, p_token_id text, p_unit_id text,
  p_authorised_by text, p_authorisation_sha256 text, p_check_unit boolean,
  p_dev_key_id bigint, p_checksum_secret text, p_require_v2 boolean, p_require_transaction_id boolean)
RETURNS TABLE (transfer_id bigint, balance_after_minor bigint) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_profile_id bigint;
  v_held bigint := 0;
BEGIN
  -- The terminal as the caller authenticated it (perhaps from a remembered answer): still
  -- bound to its DevKey and usable (terminal_refusal), the same secret and settings. If not,
  -- transfer id 0 and nothing booked: the caller authenticates afresh.
  IF p_check_unit AND NOT EXISTS (
      SELECT 1 FROM tracking_units tu
        JOIN dev_keys dk ON dk.id = tu.dev_key_id
        JOIN merchants m ON m.id = tu.merchant_id
       WHERE tu.id = p_unit_id AND tu.merchant_id = p_merchant_id AND tu.dev_key_id = p_dev_key_id
         AND terminal_refusal(dk.revoked_at, tu.id, tu.activated, tu.deactivated_at, true) IS NULL
         AND tu.checksum_secret = p_checksum_secret AND tu.require_security_token_v2 = p_require_v2
         AND m.require_transaction_id = p_require_transaction_id) THEN
    RETURN QUERY SELECT 0::bigint, 0::bigint;
    RETURN;
  END IF;
  -- A withdrawal from a profile's account: under the profile's lock, what live checkout
  -- reservations hold is not available to it.
  IF p_kind = 'withdrawal' THEN
    SELECT p.id INTO v_profile_id FROM profiles p
     WHERE p.account_id = p_account_id AND p.merchant_id = p_merchant_id
     FOR NO KEY UPDATE;
    IF v_profile_id IS NOT NULL THEN
      SELECT COALESCE(SUM(r.remaining_minor), 0) INTO v_held FROM checkout_reservations r
       WHERE r.profile_id = v_profile_id AND r.status = 'active' AND r.expires_at > p_now;
    END IF;
  END IF;
  -- The card (registered, unexpired, still paying from that account) and the merchant's
  -- liability account in the currency: if not, nothing booked.
  IF p_check_card AND NOT (
       EXISTS (
         SELECT 1 FROM cards c
           LEFT JOIN profiles p ON p.id = c.profile_id AND c.token_type = 0
          WHERE c.id = p_card_id AND c.merchant_id = p_merchant_id AND c.state = 'registered'
            AND (c.expires_at IS NULL OR c.expires_at > p_now)
            AND COALESCE(p.account_id, c.account_id) = p_account_id)
       AND EXISTS (
         SELECT 1 FROM ledger_accounts l
          WHERE l.id = p_liability_id AND l.merchant_id = p_merchant_id
            AND l.kind = 'liability' AND l.currency = p_currency)) THEN
    RETURN;
  END IF;
  RETURN QUERY
    SELECT t.transfer_id, t.balance_after_minor
      FROM post_transfers(ARRAY[p_merchant_id], ARRAY[p_account_id], ARRAY[p_delta_minor],
             ARRAY[p_min_balance_minor + v_held], ARRAY[p_max_balance_minor], ARRAY[p_now],
             ARRAY[p_currency], ARRAY[p_transaction_id], ARRAY[p_kind], ARRAY[p_debit_id],
             ARRAY[p_credit_id], ARRAY[p_amount_minor], ARRAY[p_card_id], ARRAY[p_token_id],
             ARRAY[p_unit_id], ARRAY[p_authorised_by], ARRAY[p_authorisation_sha256]) t;
  IF NOT FOUND THEN
    -- Refused only because of what reservations hold: say so (-1), so that the caller
    -- answers insufficient balance rather than reading again.
    IF v_held > 0 AND EXISTS (
        SELECT 1 FROM ledger_accounts a
         WHERE a.id = p_account_id AND a.balance_minor >= p_min_balance_minor) THEN
      RETURN QUERY SELECT -1::bigint, 0::bigint;
    END IF;
  END IF;
END $$;
