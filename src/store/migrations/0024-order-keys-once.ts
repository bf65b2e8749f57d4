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
// The claim: from its first line to its last (0022, "The keys").
const CLAIM_FROM = '       WITH candidates AS (';
const CLAIM_TO =
  '         FROM candidates c JOIN claimed k ON k.client_id = c.client_id AND k.key = c.idempotency_key;';

const LOOKUP = `       -- The first order of each key that no row holds yet (its row is written with the answer).
       SELECT coalesce(array_agg(c.row_no), '{}') INTO v_claimed
         FROM (SELECT DISTINCT ON (u.client_id, u.idempotency_key) u.row_no, u.client_id,
                      u.idempotency_key
                 FROM unnest(w) u
                WHERE v_way[u.row_no + 1] = 'set'
                ORDER BY u.client_id, u.idempotency_key, u.row_no) c
        WHERE NOT EXISTS (SELECT 1 FROM checkout_idempotency_keys k
                           WHERE k.client_id = c.client_id AND k.key = c.idempotency_key);`;

// The stored answers: the update at the end, from its first line to its last.
const STORE_FROM = '       UPDATE checkout_idempotency_keys k';
const STORE_TO =
  "        WHERE v_way[u.row_no + 1] = 'set' AND k.client_id = u.client_id AND k.key = u.idempotency_key;";

const INSERT_ANSWERS = `       INSERT INTO checkout_idempotency_keys (client_id, key, request_sha256, status,
         response_status, response_body, created_at, expires_at)
       SELECT u.client_id, u.idempotency_key, u.request_sha256, 'done', o_status[u.row_no + 1],
              o_text[u.row_no + 1], u.now, u.now + u.key_ttl_ms * interval '1 millisecond'
         FROM unnest(w) u
        WHERE v_way[u.row_no + 1] = 'set'
        ORDER BY u.row_no;`;

/** `text` with the lines from `from` to `to` (each found once, in that order) replaced by `by`. */
function replaced(text: string, from: string, to: string, by: string): string {
  const start = text.indexOf(from);
  const end = text.indexOf(to, start) + to.length;
  if (start < 0 || end < to.length || text.indexOf(from, start + 1) >= 0 || text.indexOf(to, end) >= 0) {
    throw new Error(`migration 0024: the step to replace is not once in place_orders: ${from.trim()}`);
  }
  return text.slice(0, start) + by + text.slice(end);
}

const original = placeOrders.statements.find((s) => s.includes('CREATE FUNCTION place_orders('));
if (original === undefined) throw new Error('migration 0024: place_orders not found in migration 0022');

export const orderKeysOnce: Migration = {
  name: '0024-order-keys-once',
  statements: [
    replaced(
      replaced(
        original.replace('CREATE FUNCTION place_orders(', 'CREATE OR REPLACE FUNCTION place_orders('),
        CLAIM_FROM,
        CLAIM_TO,
        LOOKUP,
      ),
      STORE_FROM,
      STORE_TO,
      INSERT_ANSWERS,
    ),
  ],
};
