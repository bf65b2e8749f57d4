import type { Migration } from './migration.js';

/**
 * The writes of the hot paths (basket upload, card postings) as stored functions: a function's
 * statements are planned once per connection instead of on every request, which halves the cost
 * of these writes on the embedded database and cuts it on PostgreSQL.
 */
export const hotPaths: Migration = {
  name: '0005-hot-paths',
  statements: [
    // The basket write of the upload hot path. As a function its statement is planned once per
    // connection instead of on every upload. It stores the basket only when the terminal is
    // still what the caller assumed and the basket is not granted; NULL means it wrote nothing.
    `CREATE FUNCTION write_basket(
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
         WHERE tu.id = p_unit_id AND tu.dev_key_id = p_dev_key_id AND tu.activated
           AND tu.merchant_id = p_merchant_id AND tu.outlet_id = p_outlet_id
           AND tu.sortiment_id IS NOT DISTINCT FROM p_sortiment_id AND m.rules_version = p_rules_version)
       ON CONFLICT (tracking_unit_id, basket_id) DO UPDATE SET
         outlet_id = excluded.outlet_id,
         timestamp_utc = excluded.timestamp_utc,
         timestamp_offset_minutes = excluded.timestamp_offset_minutes,
         currency = excluded.currency,
         total_value_minor = excluded.total_value_minor,
         consumer_token = excluded.consumer_token,
         gift_card_id = excluded.gift_card_id,
         profile_id = excluded.profile_id,
         body = excluded.body,
         bill_pdf = excluded.bill_pdf,
         result = excluded.result,
         uploaded_at = excluded.uploaded_at,
         revision = baskets.revision + 1
       WHERE baskets.granted_at IS NULL
       RETURNING revision INTO written;
       RETURN written;
     END $$`,
    // Baskets are written far more often than read; compressing their JSON costs more CPU than
    // the disk it saves.
    `ALTER TABLE baskets ALTER COLUMN body SET STORAGE EXTERNAL`,
    `ALTER TABLE baskets ALTER COLUMN result SET STORAGE EXTERNAL`,
    // A top-up or withdrawal: the conditional UPDATE of the customer account (the race-free
    // balance check, plus the card facts a cached plan relied on) and the INSERT of the transfer
    // that reads its new balance, as one statement. No row back: the guard did not hold.
    `CREATE FUNCTION post_transfer(
       p_merchant_id bigint, p_account_id bigint, p_delta_minor bigint, p_min_balance_minor bigint,
       p_max_balance_minor bigint, p_check_card boolean, p_card_id bigint, p_liability_id bigint,
       p_now timestamptz, p_currency text, p_transaction_id text, p_kind text, p_debit_id bigint,
       p_credit_id bigint, p_amount_minor bigint, p_token_id text, p_unit_id text)
     RETURNS TABLE (transfer_id bigint, balance_after_minor bigint) LANGUAGE plpgsql AS $$
     #variable_conflict use_column
     DECLARE new_balance bigint;
     BEGIN
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
           tracking_unit_id, created_at)
         VALUES (p_merchant_id, p_transaction_id, p_kind, p_debit_id, p_credit_id, p_amount_minor,
           p_currency, p_card_id, p_token_id, new_balance, p_unit_id, p_now)
         RETURNING id, balance_after_minor;
     END $$`,
  ],
};
