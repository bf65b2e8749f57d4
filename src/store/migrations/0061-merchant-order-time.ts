import type { Migration } from './migration.js';

/**
 * The merchant's checkout orders by time, for the portal's order list (docs/decisions.md,
 * "Finding checkout orders"): newest first, ties by id, a page at a time, and by days. Migration
 * 0051 dropped the index of these columns when no query read a merchant's orders by time (this one
 * has a name of its own, so that 0051's drop stays what it was); without it the list's
 * first page read every order of every merchant and sorted them (PostgreSQL 59 ms, the embedded
 * database 113 ms, among 92,000 orders). It costs an order one index entry more, 1 to 3 % of the
 * database's instructions per batch as measured when it was dropped (docs/performance.md, "An
 * index entry less per order: the merchant's order time").
 */
export const merchantOrderTime: Migration = {
  name: '0061-merchant-order-time',
  statements: [
    `CREATE INDEX checkout_orders_merchant_placed ON checkout_orders (merchant_id, created_at, id)`,
  ],
};
