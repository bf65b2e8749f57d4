import type { Migration } from './migration.js';

/**
 * The merchant's refunds of checkout orders by the time they were made, for the dashboard's order
 * figures (docs/decisions.md, "Checkout orders on the dashboard"): a period's refunds count on the
 * day of the refund, as the tills' returns do, and are read by merchant and time rather than from
 * every merchant's refunds. A refund is rare beside an order: the entry costs the orders nothing.
 */
export const merchantRefundTime: Migration = {
  name: '0062-merchant-refund-time',
  statements: [`CREATE INDEX checkout_refunds_merchant_time ON checkout_refunds (merchant_id, created_at)`],
};
