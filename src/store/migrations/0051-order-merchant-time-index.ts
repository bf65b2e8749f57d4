import type { Migration } from './migration.js';

/**
 * A checkout order is written with one index entry less: `checkout_orders_merchant_time`
 * (merchant_id, created_at, id), migration 0031, serves no query. Every query of orders by time
 * names the profile (a profile's orders listed and paged, `/me`'s purchases, a card's report),
 * which `checkout_orders_profile_time` (profile_id, created_at DESC), migration 0025, serves; the
 * others find an order by its id or its basketId (docs/performance.md, "An index entry less per
 * order: the merchant's order time").
 */
export const orderMerchantTimeIndex: Migration = {
  name: '0051-order-merchant-time-index',
  statements: [`DROP INDEX IF EXISTS checkout_orders_merchant_time`],
};
