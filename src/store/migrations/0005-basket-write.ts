import type { Migration } from './migration.js';

/** The basket write of the upload hot path, as a stored function. */
export const basketWrite: Migration = {
  name: '0005-basket-write',
  statements: [
    // The basket write of the upload hot path. As a function its statement is planned once per
    // connection instead of on every upload. It stores the basket only when the terminal is
    // still what the caller assumed and the basket is not granted; NULL means it wrote nothing.
    `CREATE FUNCTION write_basket(
       p_merchant_id bigint, p_unit_id text, p_basket_id text, p_outlet_id bigint,
       p_timestamp_utc timestamptz, p_offset_minutes integer, p_currency text, p_total_minor bigint,
       p_consumer_token text, p_gift_card_id text, p_body json, p_bill_pdf bytea, p_result json,
       p_uploaded_at timestamptz, p_dev_key text, p_sortiment_id bigint, p_rules_version bigint,
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
         JOIN dev_keys dk ON dk.id = tu.dev_key_id
         JOIN merchants m ON m.id = tu.merchant_id
         WHERE tu.id = p_unit_id AND dk.dev_key = p_dev_key AND tu.activated
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
  ],
};
