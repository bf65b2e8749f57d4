import type { Migration } from './migration.js';

/**
 * Cheaper basket writes, the hot path of every till.
 *
 * - No foreign keys from baskets to merchants and terminals. Baskets have one writer,
 *   `write_basket` (migration 0005), which stores a basket only when its terminal exists, is
 *   active and belongs to the merchant, checked in the same statement; merchants and terminals
 *   are never deleted. The two key checks repeated that check on every upload and cost about an
 *   eighth of the database's time per upload.
 * - The basket body compressed with lz4 where the server has it (PostgreSQL as Debian and most
 *   distributions build it): a 20-position body then stays in the row, instead of going to the
 *   TOAST table uncompressed (two more heap rows and index entries per upload), and lz4 costs
 *   less than either. The embedded database is built without lz4; there the body stays stored
 *   as before (measured: no difference there between the storage choices).
 */
export const basketWrite: Migration = {
  name: '0007-basket-write',
  statements: [
    `ALTER TABLE baskets DROP CONSTRAINT baskets_merchant_id_fkey`,
    `ALTER TABLE baskets DROP CONSTRAINT baskets_tracking_unit_id_fkey`,
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
         WHERE tu.id = p_unit_id AND tu.dev_key_id = p_dev_key_id AND tu.activated
           AND tu.merchant_id = p_merchant_id AND tu.outlet_id = p_outlet_id
           AND tu.sortiment_id IS NOT DISTINCT FROM p_sortiment_id AND m.rules_version = p_rules_version)
       ON CONFLICT (tracking_unit_id, basket_id) DO NOTHING
       RETURNING revision INTO written;
       IF written IS NOT NULL THEN
         RETURN written;
       END IF;
       -- A resubmission (or a terminal that changed: then the update finds nothing either).
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
           WHERE tu.id = p_unit_id AND tu.dev_key_id = p_dev_key_id AND tu.activated
             AND tu.merchant_id = p_merchant_id AND tu.outlet_id = p_outlet_id
             AND tu.sortiment_id IS NOT DISTINCT FROM p_sortiment_id AND m.rules_version = p_rules_version)
       RETURNING b.revision INTO written;
       RETURN written;
     END $$`,
    // Group commit of uploads (src/baskets/basket-writer.ts): the rows of a batch, in order.
    `CREATE FUNCTION write_baskets(p_rows json)
     RETURNS TABLE (row_no integer, revision integer) LANGUAGE plpgsql AS $$
     DECLARE r record;
     BEGIN
       FOR r IN SELECT * FROM json_to_recordset(p_rows) AS x(
           row_no integer, merchant_id bigint, unit_id text, basket_id text, outlet_id bigint,
           timestamp_utc timestamptz, offset_minutes integer, currency text, total_minor bigint,
           consumer_token text, gift_card_id text, body json, bill_pdf text, result json,
           uploaded_at timestamptz, dev_key_id bigint, sortiment_id bigint, rules_version bigint,
           profile_id bigint)
       LOOP
         row_no := r.row_no;
         revision := write_basket(r.merchant_id, r.unit_id, r.basket_id, r.outlet_id,
           r.timestamp_utc, r.offset_minutes, r.currency, r.total_minor, r.consumer_token,
           r.gift_card_id, r.body, decode(r.bill_pdf, 'base64'), r.result, r.uploaded_at,
           r.dev_key_id, r.sortiment_id, r.rules_version, r.profile_id);
         RETURN NEXT;
       END LOOP;
     END $$`,
    `DO $$
     BEGIN
       ALTER TABLE baskets ALTER COLUMN body SET COMPRESSION lz4;
       ALTER TABLE baskets ALTER COLUMN body SET STORAGE EXTENDED;
     EXCEPTION WHEN feature_not_supported THEN
       NULL; -- built without lz4: the storage of migration 0005 stays
     END $$`,
  ],
};
