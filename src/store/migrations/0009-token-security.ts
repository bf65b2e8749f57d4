import type { Migration } from './migration.js';

/**
 * Credentials that can be withdrawn and tokens that cannot be replayed (docs/decisions.md,
 * "SecurityTokens and credentials").
 *
 * - DevKeys are kept only as their SHA-256; existing keys are hashed here, and the clear column
 *   goes. A DevKey can be revoked: its terminals stop at once.
 * - A terminal can be deactivated by the operator (and activated again), and can be required to
 *   sign with SecurityToken-V2.
 * - A merchant can require a transactionId on addBalance and withdrawBalance.
 * - Every ledger transfer records what authorised it: the scheme and a digest of the token.
 * - Seen SecurityToken-V2 signatures, kept for their window so that no instance accepts one twice.
 * - Failed identifications counted per terminal and per merchant in fixed windows.
 * - The basket write also refuses a terminal whose DevKey is revoked, and a balance booking
 *   re-checks the terminal it was authorised for (both may start from a remembered answer).
 */
export const tokenSecurity: Migration = {
  name: '0009-token-security',
  statements: [
    `ALTER TABLE dev_keys ADD COLUMN key_sha256 text`,
    `UPDATE dev_keys SET key_sha256 = encode(sha256(convert_to(dev_key, 'UTF8')), 'hex')`,
    `ALTER TABLE dev_keys ALTER COLUMN key_sha256 SET NOT NULL`,
    `CREATE UNIQUE INDEX dev_keys_key_sha256 ON dev_keys (key_sha256)`,
    `ALTER TABLE dev_keys DROP COLUMN dev_key`,
    `ALTER TABLE dev_keys ADD COLUMN revoked_at timestamptz`,
    `ALTER TABLE tracking_units ADD COLUMN deactivated_at timestamptz`,
    `ALTER TABLE tracking_units ADD COLUMN require_security_token_v2 boolean NOT NULL DEFAULT false`,
    `ALTER TABLE tracking_units ADD COLUMN checksum_secret_rotated_at timestamptz`,
    `CREATE INDEX tracking_units_dev_key ON tracking_units (dev_key_id)`,
    `ALTER TABLE merchants ADD COLUMN require_transaction_id boolean NOT NULL DEFAULT false`,
    // Transfers booked before this migration were authorised by a token nobody recorded.
    `ALTER TABLE ledger_transfers ADD COLUMN authorised_by text NOT NULL DEFAULT 'unrecorded'
       CHECK (authorised_by IN ('unrecorded', 'md5', 'v2', 'operator'))`,
    `ALTER TABLE ledger_transfers ADD COLUMN authorisation_sha256 text`,
    `CREATE TABLE security_token_signatures (
       tracking_unit_id text NOT NULL,
       signature text NOT NULL,
       expires_at timestamptz NOT NULL,
       PRIMARY KEY (tracking_unit_id, signature))`,
    `CREATE TABLE identification_failures (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       subject text NOT NULL,
       window_start timestamptz NOT NULL,
       failures integer NOT NULL,
       PRIMARY KEY (merchant_id, subject, window_start))`,
    `CREATE FUNCTION post_transfer(
       p_merchant_id bigint, p_account_id bigint, p_delta_minor bigint, p_min_balance_minor bigint,
       p_max_balance_minor bigint, p_check_card boolean, p_card_id bigint, p_liability_id bigint,
       p_now timestamptz, p_currency text, p_transaction_id text, p_kind text, p_debit_id bigint,
       p_credit_id bigint, p_amount_minor bigint, p_token_id text, p_unit_id text,
       p_authorised_by text, p_authorisation_sha256 text, p_check_unit boolean,
       p_dev_key_id bigint, p_checksum_secret text, p_require_v2 boolean, p_require_transaction_id boolean)
     RETURNS TABLE (transfer_id bigint, balance_after_minor bigint) LANGUAGE plpgsql AS $$
     #variable_conflict use_column
     DECLARE new_balance bigint;
     BEGIN
       -- The terminal as the caller authenticated it (perhaps from a remembered answer): still
       -- bound to its DevKey, the key not revoked, active, the same secret and settings. If not,
       -- transfer id 0 and nothing booked: the caller authenticates afresh.
       IF p_check_unit AND NOT EXISTS (
           SELECT 1 FROM tracking_units tu
             JOIN dev_keys dk ON dk.id = tu.dev_key_id
             JOIN merchants m ON m.id = tu.merchant_id
            WHERE tu.id = p_unit_id AND tu.merchant_id = p_merchant_id AND tu.dev_key_id = p_dev_key_id
              AND dk.revoked_at IS NULL AND tu.activated AND tu.deactivated_at IS NULL
              AND tu.checksum_secret = p_checksum_secret AND tu.require_security_token_v2 = p_require_v2
              AND m.require_transaction_id = p_require_transaction_id) THEN
         RETURN QUERY SELECT 0::bigint, 0::bigint;
         RETURN;
       END IF;
       UPDATE ledger_accounts a SET balance_minor = a.balance_minor + p_delta_minor
        WHERE a.id = p_account_id AND a.merchant_id = p_merchant_id AND a.status = 'open'
          AND a.balance_minor >= p_min_balance_minor
          AND (p_max_balance_minor IS NULL OR a.balance_minor <= p_max_balance_minor)
          AND (NOT p_check_card OR (
            EXISTS (
              SELECT 1 FROM cards c
                LEFT JOIN profiles p ON p.id = c.profile_id AND c.token_type = 0
               WHERE c.id = p_card_id AND c.merchant_id = p_merchant_id AND c.state = 'registered'
                 AND (c.expires_at IS NULL OR c.expires_at > p_now)
                 AND COALESCE(p.account_id, c.account_id) = p_account_id)
            AND EXISTS (
              SELECT 1 FROM ledger_accounts l
               WHERE l.id = p_liability_id AND l.merchant_id = p_merchant_id
                 AND l.kind = 'liability' AND l.currency = p_currency)))
       RETURNING a.balance_minor INTO new_balance;
       IF NOT FOUND THEN
         RETURN;
       END IF;
       RETURN QUERY
         INSERT INTO ledger_transfers (merchant_id, transaction_id, kind, debit_account_id,
           credit_account_id, amount_minor, currency, card_id, token_id, balance_after_minor,
           tracking_unit_id, created_at, authorised_by, authorisation_sha256)
         VALUES (p_merchant_id, p_transaction_id, p_kind, p_debit_id, p_credit_id, p_amount_minor,
           p_currency, p_card_id, p_token_id, new_balance, p_unit_id, p_now, p_authorised_by,
           p_authorisation_sha256)
         RETURNING id, balance_after_minor;
     END $$`,
    `DROP FUNCTION post_transfer(bigint, bigint, bigint, bigint, bigint, boolean, bigint, bigint,
       timestamptz, text, text, text, bigint, bigint, bigint, text, text)`,
    `CREATE OR REPLACE FUNCTION write_basket(
       p_merchant_id bigint, p_unit_id text, p_basket_id text, p_outlet_id bigint,
       p_timestamp_utc timestamptz, p_offset_minutes integer, p_currency text, p_total_minor bigint,
       p_consumer_token text, p_gift_card_id text, p_body json, p_bill_pdf bytea, p_result json,
       p_uploaded_at timestamptz, p_dev_key_id bigint, p_sortiment_id bigint, p_rules_version bigint,
       p_profile_id bigint)
     RETURNS integer LANGUAGE plpgsql AS $$
     DECLARE written integer;
     BEGIN
       INSERT INTO baskets (merchant_id, tracking_unit_id, basket_id, outlet_id, timestamp_utc,
         timestamp_offset_minutes, currency, total_value_minor, consumer_token, gift_card_id, body,
         bill_pdf, result, uploaded_at, profile_id)
       SELECT p_merchant_id, p_unit_id, p_basket_id, p_outlet_id, p_timestamp_utc, p_offset_minutes,
         p_currency, p_total_minor, p_consumer_token, p_gift_card_id, p_body, p_bill_pdf, p_result,
         p_uploaded_at, p_profile_id
       WHERE EXISTS (
         SELECT 1 FROM tracking_units tu
         JOIN merchants m ON m.id = tu.merchant_id
         JOIN dev_keys dk ON dk.id = tu.dev_key_id
         WHERE tu.id = p_unit_id AND tu.dev_key_id = p_dev_key_id AND tu.activated
           AND dk.revoked_at IS NULL
           AND tu.merchant_id = p_merchant_id AND tu.outlet_id = p_outlet_id
           AND tu.sortiment_id IS NOT DISTINCT FROM p_sortiment_id AND m.rules_version = p_rules_version)
       ON CONFLICT (tracking_unit_id, basket_id) DO NOTHING
       RETURNING revision INTO written;
       IF written IS NOT NULL THEN
         RETURN written;
       END IF;
       UPDATE baskets b SET
         outlet_id = p_outlet_id,
         timestamp_utc = p_timestamp_utc,
         timestamp_offset_minutes = p_offset_minutes,
         currency = p_currency,
         total_value_minor = p_total_minor,
         consumer_token = p_consumer_token,
         gift_card_id = p_gift_card_id,
         profile_id = p_profile_id,
         body = p_body,
         bill_pdf = p_bill_pdf,
         result = p_result,
         uploaded_at = p_uploaded_at,
         revision = b.revision + 1
       WHERE b.tracking_unit_id = p_unit_id AND b.basket_id = p_basket_id AND b.granted_at IS NULL
         AND EXISTS (
           SELECT 1 FROM tracking_units tu
           JOIN merchants m ON m.id = tu.merchant_id
           JOIN dev_keys dk ON dk.id = tu.dev_key_id
           WHERE tu.id = p_unit_id AND tu.dev_key_id = p_dev_key_id AND tu.activated
             AND dk.revoked_at IS NULL
             AND tu.merchant_id = p_merchant_id AND tu.outlet_id = p_outlet_id
             AND tu.sortiment_id IS NOT DISTINCT FROM p_sortiment_id AND m.rules_version = p_rules_version)
       RETURNING b.revision INTO written;
       RETURN written;
     END $$`,
  ],
};
