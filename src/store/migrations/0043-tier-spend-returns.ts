import type { Migration } from './migration.js';

/**
 * Spend tiers net of returns (docs/decisions.md, "Status tiers", "Spend net of returns"): each
 * return keeps the line gross it took back (`returned_gross_minor`, the returned share of each
 * position's line gross, so that a basket's returns add up to its `gross_minor`) and the consumer
 * of its basket as the basket has it (`profile_id`, else `consumer_token`), so that `tier_measures`
 * subtracts the returns booked in the period in one indexed read per consumer, as it adds the
 * granted baskets. Returns booked before this migration keep no returned gross (null): they do not
 * lower a measure.
 */
export const tierSpendReturns: Migration = {
  name: '0043-tier-spend-returns',
  statements: [
    `ALTER TABLE basket_returns
       ADD COLUMN profile_id bigint,
       ADD COLUMN consumer_token text,
       ADD COLUMN returned_gross_minor bigint`,
    `UPDATE basket_returns r SET profile_id = k.profile_id, consumer_token = k.consumer_token
       FROM baskets k WHERE k.tracking_unit_id = r.tracking_unit_id AND k.basket_id = r.basket_id`,
    `CREATE INDEX basket_returns_tier_profile ON basket_returns (profile_id, created_at)
       INCLUDE (returned_gross_minor) WHERE profile_id IS NOT NULL`,
    `CREATE INDEX basket_returns_tier_card ON basket_returns (merchant_id, consumer_token, created_at)
       INCLUDE (returned_gross_minor) WHERE profile_id IS NULL AND consumer_token IS NOT NULL`,
  ],
};
