import type { Migration } from './migration.js';

/** Operator records, merchants with brands and outlets, terminals and baskets. */
export const foundation: Migration = {
  name: '0001-foundation',
  statements: [
    `CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL)`,
    `CREATE TABLE dev_keys (
       id bigserial PRIMARY KEY,
       dev_key text NOT NULL UNIQUE,
       name text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE merchants (
       id bigserial PRIMARY KEY,
       service_user_name text NOT NULL UNIQUE,
       display_name text NOT NULL,
       currency char(3) NOT NULL,
       time_zone text NOT NULL,
       rules_version bigint NOT NULL DEFAULT 0,
       created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE brands (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       name text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX brands_merchant ON brands (merchant_id)`,
    `CREATE TABLE outlets (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       name text, description text, street text, city text, postal_index text, country_iso text,
       public_telefon text, public_email text, website_url text, facebook_url text, twitter_url text,
       created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX outlets_merchant ON outlets (merchant_id)`,
    `CREATE TABLE brand_outlets (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       brand_id bigint NOT NULL REFERENCES brands(id),
       outlet_id bigint NOT NULL REFERENCES outlets(id),
       PRIMARY KEY (brand_id, outlet_id))`,
    `CREATE TABLE sortiments (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       third_party_identifier text NOT NULL,
       name text,
       version bigint NOT NULL DEFAULT 0,
       created_at timestamptz NOT NULL DEFAULT now(),
       UNIQUE (merchant_id, third_party_identifier))`,
    `CREATE TABLE tracking_units (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id text PRIMARY KEY,
       dev_key_id bigint NOT NULL REFERENCES dev_keys(id),
       outlet_id bigint NOT NULL REFERENCES outlets(id),
       sortiment_id bigint REFERENCES sortiments(id),
       instance_name text NOT NULL,
       checksum_secret text NOT NULL,
       activated boolean NOT NULL DEFAULT false,
       activated_at timestamptz,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX tracking_units_merchant ON tracking_units (merchant_id, created_at)`,
    `CREATE TABLE baskets (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       tracking_unit_id text NOT NULL REFERENCES tracking_units(id),
       basket_id text NOT NULL,
       outlet_id bigint NOT NULL,
       timestamp_utc timestamptz NOT NULL,
       timestamp_offset_minutes integer NOT NULL,
       currency char(3) NOT NULL,
       total_value_minor bigint,
       consumer_token text,
       gift_card_id text,
       body json NOT NULL,
       bill_pdf bytea,
       result json NOT NULL,
       revision integer NOT NULL DEFAULT 1,
       uploaded_at timestamptz NOT NULL,
       granted_at timestamptz,
       redeemed_in_pos boolean,
       grant_result json,
       PRIMARY KEY (tracking_unit_id, basket_id))`,
    `CREATE INDEX baskets_merchant_uploaded ON baskets (merchant_id, uploaded_at DESC)`,
    // The basket write of the upload hot path. As a function its statement is planned once per
    // connection instead of on every upload. It stores the basket only when the terminal is
    // still what the caller assumed and the basket is not granted; NULL means it wrote nothing.
    `CREATE FUNCTION write_basket(
       p_merchant_id bigint, p_unit_id text, p_basket_id text, p_outlet_id bigint,
       p_timestamp_utc timestamptz, p_offset_minutes integer, p_currency text, p_total_minor bigint,
       p_consumer_token text, p_gift_card_id text, p_body json, p_bill_pdf bytea, p_result json,
       p_uploaded_at timestamptz, p_dev_key text, p_sortiment_id bigint, p_rules_version bigint)
     RETURNS integer LANGUAGE plpgsql AS $$
     DECLARE written integer;
     BEGIN
       INSERT INTO baskets (merchant_id, tracking_unit_id, basket_id, outlet_id, timestamp_utc,
         timestamp_offset_minutes, currency, total_value_minor, consumer_token, gift_card_id, body,
         bill_pdf, result, uploaded_at)
       SELECT p_merchant_id, p_unit_id, p_basket_id, p_outlet_id, p_timestamp_utc, p_offset_minutes,
         p_currency, p_total_minor, p_consumer_token, p_gift_card_id, p_body, p_bill_pdf, p_result,
         p_uploaded_at
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
