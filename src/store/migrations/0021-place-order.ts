import type { Migration } from './migration.js';

/**
 * A checkout order in one statement (docs/decisions.md, "Checkout v1: orders in one statement").
 *
 * `place_order` does in the database what an order did in about fifteen round trips: it re-checks
 * what the server's remembered answers said (the client live, its merchant's time zone, the menu
 * and campaigns the order was priced from), claims the Idempotency-Key (or answers the stored
 * answer, `in_flight` or `reused`), resolves the profile reference, locks the profile, and books
 * the order: the order row, the charge on the double-entry ledger through `post_transfer` (its
 * guard unchanged), the balance transaction, the reservation's use, the receipt, the spent
 * one-time password, one outbox message per webhook and status change, and the answer stored
 * under the key. A refusal (the same ones as before, in the same precedence) books nothing and
 * becomes the key's stored answer; its text comes from the server's catalog (`p_refusals`).
 *
 * Refusals are decided before anything is written, except that the order row goes first, so that
 * of two orders of one basketId one is refused `order_exists` before the other checks run, as
 * before; a refusal after it removes the row again in the same transaction.
 *
 * The functions this migration made or changed are kept in their files,
 * `src/orders/sql/place_order.sql`, `src/orders/sql/checkout_status_changed.sql`, which the
 * migrator applies whenever they change (docs/architecture.md, "The stored-function layer").
 */
export const placeOrder: Migration = {
  name: '0021-place-order',
  statements: [
    // The rows an order writes refer to a merchant, a client and a profile that its statement
    // found (the client live, the profile locked), and none of those is ever deleted: the key
    // checks repeated that on every row, seven per order, about a sixth of the database's time per
    // order (measured with the batches of migration 0022). The ledger's transfers keep theirs.
    `ALTER TABLE checkout_orders DROP CONSTRAINT checkout_orders_merchant_id_fkey`,
    `ALTER TABLE checkout_orders DROP CONSTRAINT checkout_orders_client_id_fkey`,
    `ALTER TABLE checkout_orders DROP CONSTRAINT checkout_orders_profile_id_fkey`,
    `ALTER TABLE balance_transactions DROP CONSTRAINT balance_transactions_merchant_id_fkey`,
    `ALTER TABLE balance_transactions DROP CONSTRAINT balance_transactions_profile_id_fkey`,
    `ALTER TABLE receipts DROP CONSTRAINT receipts_merchant_id_fkey`,
    `ALTER TABLE checkout_idempotency_keys DROP CONSTRAINT checkout_idempotency_keys_client_id_fkey`,
  ],
};
