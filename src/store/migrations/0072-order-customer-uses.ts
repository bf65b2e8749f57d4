import type { Migration } from './migration.js';

/**
 * An order of a batch that a campaign with a usage limit per customer rewards carries the uses it
 * was priced on and the uses it books (src/orders/order-write.store.ts): `book_orders` books it only
 * while its customer's uses, read under the customer's lock, are still those, and writes its uses
 * with the order (docs/decisions.md, "Usage limits and status tiers on online orders").
 */
export const orderCustomerUses: Migration = {
  name: '0072-order-customer-uses',
  statements: [`ALTER TYPE checkout_order_write ADD ATTRIBUTE customer_uses json`],
};
