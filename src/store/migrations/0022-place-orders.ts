import type { Migration } from './migration.js';

/**
 * Checkout orders written in batches (docs/decisions.md, "Checkout v1: orders in one statement").
 *
 * `place_orders` takes a batch (group commit, src/orders/order-write.store.ts) and books it with one
 * statement per step for the whole batch instead of one per step and order: the orders of a
 * customer card without a reservation whose key is new, which are nearly all of them. It decides
 * them by the same rules (`place_order`'s, in memory, profile by profile in the order of the
 * orders), locks their profiles in the order of the profiles' ids, so that two batches never wait
 * for each other in a circle, and re-checks at the write that every account it charges still holds
 * what the charges were decided on. Every other order of the batch (a one-time password, an
 * unknown reference, a reservation, a key seen before) goes through `place_order` afterwards, in
 * its own subtransaction. A batch that fails as a whole is written again order by order.
 *
 * The function this migration made or changed is kept in its file,
 * `src/orders/sql/place_orders.sql`, which the migrator applies whenever it changes
 * (docs/architecture.md, "The stored-function layer").
 */
export const placeOrders: Migration = {
  name: '0022-place-orders',
  statements: [
    // One order of a batch, as the server sends it (src/orders/order-write.store.ts).
    `CREATE TYPE checkout_order_write AS (
       row_no integer, client_id bigint, merchant_id bigint, time_zone text, sortiment_id bigint,
       menu_version bigint, menu_gen bigint, rules_version bigint, idempotency_key text,
       request_sha256 text, now timestamptz, now_text text, key_ttl_ms bigint, reference text,
       otp_sha256 text, order_id text, basket_id text, receipt_id text, currency text,
       total_minor bigint, charge boolean, priced jsonb, liability_id bigint, transaction_id text,
       reservation_id text, cancel_remaining boolean, answer text, currency_json text)`,
  ],
};
