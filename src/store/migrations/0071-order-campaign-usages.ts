import type { Migration } from './migration.js';

/**
 * An online order counts towards a campaign's usage limit per customer as a till's granted basket
 * does (docs/decisions.md, "Usage limits and status tiers on online orders"): this table holds the
 * uses an order was given of the campaigns with such a limit, keyed by the order and held by its
 * customer's profile. `consumer_state` adds them to the tills' `campaign_usages`, so the upload,
 * the grant, the return and the next order all read one count; an order refunded in whole releases
 * them.
 */
export const orderCampaignUsages: Migration = {
  name: '0071-order-campaign-usages',
  statements: [
    `CREATE TABLE order_campaign_usages (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       order_id text NOT NULL,
       campaign_id bigint NOT NULL REFERENCES campaigns(id),
       profile_id bigint NOT NULL REFERENCES profiles(id),
       used integer NOT NULL CHECK (used > 0),
       released integer NOT NULL DEFAULT 0 CHECK (released >= 0 AND released <= used),
       created_at timestamptz NOT NULL,
       released_at timestamptz,
       PRIMARY KEY (merchant_id, order_id, campaign_id))`,
    `CREATE INDEX order_campaign_usages_profile ON order_campaign_usages (profile_id, campaign_id)`,
  ],
};
