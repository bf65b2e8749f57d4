import { placeOrders } from './0022-place-orders.js';
import type { Migration } from './migration.js';

/**
 * Checkout orders written in batches store each new Idempotency-Key once, with its answer
 * (docs/decisions.md, "Orders in one statement": idempotency). `place_orders` (migration 0022)
 * claimed the batch's new keys by inserting them in flight and stored their answers at the end
 * with an update: two row versions per order. Now the keys are looked up instead of claimed and
 * inserted at the end with their answers. Nothing else changes: the function below is 0022's with
 * these two steps replaced (each replacement must match, or the migration fails to load).
 *
 * Why a lookup suffices: a key another transaction is working on is locked
 * (`pg_try_advisory_xact_lock`, taken just before) or inserted by it, committed or not; a key
 * inserted by another writer after the lookup makes the final insert fail, which undoes the batch,
 * and its orders are written again one by one, each then finding the key as before.
 */
const CLAIM = `       WITH candidates AS (
         SELECT DISTINCT ON (u.client_id, u.idempotency_key) u.row_no, u.client_id,
                u.idempotency_key, u.request_sha256, u.now, u.key_ttl_ms
           FROM unnest(w) u
          WHERE v_way[u.row_no + 1] = 'set'
          ORDER BY u.client_id, u.idempotency_key, u.row_no),
       claimed AS (
         INSERT INTO checkout_idempotency_keys (client_id, key, request_sha256, status,
           response_status, response_body, created_at, expires_at)
         SELECT c.client_id, c.idempotency_key, c.request_sha256, 'in_flight', NULL, NULL, c.now,
                c.now + c.key_ttl_ms * interval '1 millisecond'
           FROM candidates c
         ON CONFLICT (client_id, key) DO NOTHING
         RETURNING client_id, key)
       SELECT coalesce(array_agg(c.row_no), '{}') INTO v_claimed
         FROM candidates c JOIN claimed k ON k.client_id = c.client_id AND k.key = c.idempotency_key;`;

const LOOKUP = `       -- The first order of each key that no row holds yet (its row is written with the answer).
       SELECT coalesce(array_agg(c.row_no), '{}') INTO v_claimed
         FROM (SELECT DISTINCT ON (u.client_id, u.idempotency_key) u.row_no, u.client_id,
                      u.idempotency_key
                 FROM unnest(w) u
                WHERE v_way[u.row_no + 1] = 'set'
                ORDER BY u.client_id, u.idempotency_key, u.row_no) c
        WHERE NOT EXISTS (SELECT 1 FROM checkout_idempotency_keys k
                           WHERE k.client_id = c.client_id AND k.key = c.idempotency_key);`;

const STORE_ANSWERS = `       UPDATE checkout_idempotency_keys k
          SET status = 'done', response_status = o_status[u.row_no + 1],
              response_body = o_text[u.row_no + 1]
         FROM unnest(w) u
        WHERE v_way[u.row_no + 1] = 'set' AND k.client_id = u.client_id AND k.key = u.idempotency_key;`;

const INSERT_ANSWERS = `       INSERT INTO checkout_idempotency_keys (client_id, key, request_sha256, status,
         response_status, response_body, created_at, expires_at)
       SELECT u.client_id, u.idempotency_key, u.request_sha256, 'done', o_status[u.row_no + 1],
              o_text[u.row_no + 1], u.now, u.now + u.key_ttl_ms * interval '1 millisecond'
         FROM unnest(w) u
        WHERE v_way[u.row_no + 1] = 'set'
        ORDER BY u.row_no;`;

function replaced(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) {
    throw new Error(`migration 0024: the step to replace is not once in place_orders: ${from.slice(0, 60)}`);
  }
  return text.slice(0, at) + to + text.slice(at + from.length);
}

const original = placeOrders.statements.find((s) => s.includes('CREATE FUNCTION place_orders('));
if (original === undefined) throw new Error('migration 0024: place_orders not found in migration 0022');

export const orderKeysOnce: Migration = {
  name: '0024-order-keys-once',
  statements: [
    replaced(
      replaced(replaced(original, 'CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'), CLAIM, LOOKUP),
      STORE_ANSWERS,
      INSERT_ANSWERS,
    ),
  ],
};
