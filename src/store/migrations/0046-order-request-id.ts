import type { Migration } from './migration.js';

/**
 * An order of a batch carries the id of its request (src/orders/order-write.store.ts), so that the
 * order statement stores a refusal's answer naming its request at once (order_refusal), instead of
 * the server writing the stored answer again after the statement (docs/decisions.md, "Errors,
 * request ids and rate limits").
 */
export const orderRequestId: Migration = {
  name: '0046-order-request-id',
  statements: [`ALTER TYPE checkout_order_write ADD ATTRIBUTE request_id text`],
};
