import type { Migration } from './migration.js';

/**
 * Checkout orders written in batches store each new Idempotency-Key once, with its answer
 * (docs/decisions.md, "Orders in one statement": idempotency). `place_orders` claimed the batch's
 * new keys by inserting them in flight and stored their answers at the end with an update: two row
 * versions per order. Since this migration the keys are looked up instead of claimed and inserted
 * at the end with their answers.
 *
 * Why a lookup suffices: a key another transaction is working on is locked
 * (`pg_try_advisory_xact_lock`, taken just before) or inserted by it, committed or not; a key
 * inserted by another writer after the lookup makes the final insert fail, which undoes the batch,
 * and its orders are written again one by one, each then finding the key as before.
 *
 * The change was to the function alone, which is kept whole in its file,
 * `src/orders/sql/place_orders.sql`, applied by the migrator whenever it changes
 * (docs/architecture.md, "The stored-function layer"); the migration stays, with nothing left to
 * do, because databases record it as applied.
 */
export const orderKeysOnce: Migration = {
  name: '0024-order-keys-once',
  statements: [],
};
