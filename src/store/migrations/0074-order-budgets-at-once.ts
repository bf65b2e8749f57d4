import type { Migration } from './migration.js';

/**
 * An order of a batch given a campaign with a budget carries what it books of the budget
 * (src/orders/order-write.store.ts): `book_orders` books it only while it fits what is left under
 * the budget's lock, the orders before it in the batch counted, and writes the booking with the
 * order (docs/decisions.md, "A campaign with a budget and online orders").
 */
export const orderBudgetsAtOnce: Migration = {
  name: '0074-order-budgets-at-once',
  statements: [`ALTER TYPE checkout_order_write ADD ATTRIBUTE budgets json`],
};
