import type { Migration } from './migration.js';

/**
 * The consumer portal lists a profile's checkout orders with its baskets, newest first
 * (docs/decisions.md, "Purchases, receipts and the purchase mail"): orders get an index by profile
 * and time, as baskets have one.
 */
export const consumerPurchases: Migration = {
  name: '0025-consumer-purchases',
  statements: [`CREATE INDEX checkout_orders_profile_time ON checkout_orders (profile_id, created_at DESC)`],
};
