import type { Migration } from './migration.js';

/**
 * A customer's uses in online orders are read by merchant, profile and campaign (`consumer_state`,
 * at every order a campaign limited per customer may reward and in its booking): one index with
 * all three. With the index by profile alone, the function's generic plan also scanned the
 * primary key by merchant and joined the two, reading every use of the merchant's orders: a cost
 * that grew with the merchant's orders (docs/performance.md, the forty-second machine).
 */
export const orderCampaignUsagesCustomer: Migration = {
  name: '0073-order-campaign-usages-customer',
  statements: [
    `CREATE INDEX order_campaign_usages_customer
       ON order_campaign_usages (merchant_id, profile_id, campaign_id)`,
    `DROP INDEX order_campaign_usages_profile`,
  ],
};
