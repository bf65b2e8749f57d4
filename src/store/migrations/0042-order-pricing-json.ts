import type { Migration } from './migration.js';

/**
 * An order's stored pricing (`checkout_orders.priced`, the head and the priced positions the
 * answer is made from) is kept as `json`, as written, not `jsonb` (docs/decisions.md, "An order's
 * pricing stored as written"): it is only ever read whole, and turning each order's pricing into
 * jsonb cost more of the database's time per order (about 70 microseconds for six positions) than
 * the rest of its parsing. The batch's row type carries it the same way.
 */
export const orderPricingJson: Migration = {
  name: '0042-order-pricing-json',
  statements: [
    `ALTER TYPE checkout_order_write ALTER ATTRIBUTE priced TYPE json`,
    `ALTER TABLE checkout_orders ALTER COLUMN priced TYPE json USING priced::json`,
  ],
};
