import type { Migration } from './migration.js';

/**
 * Unique codes of a campaign (docs/decisions.md, "Unique codes"): batches of generated codes, each
 * redeemable once across every till of the merchant. A code is kept normalised (upper case) and
 * unique per merchant, so that a basket's coupon finds at most one code. The grant claims a code in
 * its own transaction (`claim_campaign_codes`) and writes where and when; a return that releases the
 * campaign's usage gives the code back (the redemption columns are cleared, `given_back_at` says so).
 */
export const campaignCodes: Migration = {
  name: '0038-campaign-codes',
  statements: [
    `CREATE TABLE campaign_code_batches (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial,
       campaign_id bigint NOT NULL REFERENCES campaigns(id),
       prefix text NOT NULL,
       code_length integer NOT NULL CHECK (code_length BETWEEN 6 AND 32),
       count integer NOT NULL CHECK (count BETWEEN 1 AND 100000),
       created_at timestamptz NOT NULL,
       PRIMARY KEY (merchant_id, id))`,
    `CREATE INDEX campaign_code_batches_campaign ON campaign_code_batches (merchant_id, campaign_id, id)`,
    `CREATE TABLE campaign_codes (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       code text NOT NULL CHECK (code = upper(code) AND code <> ''),
       campaign_id bigint NOT NULL REFERENCES campaigns(id),
       batch_id bigint NOT NULL,
       redeemed_at timestamptz,
       tracking_unit_id text,
       basket_id text,
       outlet_id bigint,
       given_back_at timestamptz,
       PRIMARY KEY (merchant_id, code),
       FOREIGN KEY (merchant_id, batch_id) REFERENCES campaign_code_batches (merchant_id, id),
       CHECK ((redeemed_at IS NULL) = (tracking_unit_id IS NULL AND basket_id IS NULL)))`,
    `CREATE INDEX campaign_codes_batch ON campaign_codes (merchant_id, batch_id, code)`,
    `CREATE INDEX campaign_codes_basket ON campaign_codes (tracking_unit_id, basket_id)
       WHERE redeemed_at IS NOT NULL`,
  ],
};
