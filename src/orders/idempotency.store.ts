import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';

/**
 * Idempotency keys of checkout orders, Stripe's semantics (docs/decisions.md, "Checkout v1:
 * idempotency"): per client, kept 24 hours. The row is inserted before the work starts (the
 * primary key makes one of two concurrent requests the first); the answer is written in the
 * transaction that books the order, or, for a refusal, right after it.
 */

type Db = Kysely<DB> | Transaction<DB>;

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

export type IdempotencyStart =
  { readonly state: 'new' } | { readonly state: 'replay'; readonly status: number; readonly body: string };

export async function beginIdempotent(
  db: Kysely<DB>,
  clientId: number,
  key: string,
  requestSha256: string,
  nowMs: number,
): Promise<IdempotencyStart> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const inserted = await db
      .insertInto('checkout_idempotency_keys')
      .values({
        client_id: clientId,
        key,
        request_sha256: requestSha256,
        status: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: new Date(nowMs),
        expires_at: new Date(nowMs + IDEMPOTENCY_TTL_MS),
      })
      .onConflict((oc) => oc.columns(['client_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (inserted) return { state: 'new' };
    const row = await db
      .selectFrom('checkout_idempotency_keys')
      .select(['request_sha256', 'status', 'response_status', 'response_body', 'expires_at'])
      .where('client_id', '=', clientId)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) continue;
    if (row.expires_at.getTime() <= nowMs) {
      // Older than 24 hours: the key is free again.
      await db
        .deleteFrom('checkout_idempotency_keys')
        .where('client_id', '=', clientId)
        .where('key', '=', key)
        .where('expires_at', '<=', new Date(nowMs))
        .execute();
      continue;
    }
    if (row.request_sha256 !== requestSha256) throw new AppError('idempotencyKeyReused');
    if (row.status === 'in_flight' || row.response_status === null || row.response_body === null) {
      throw new AppError('idempotencyKeyInFlight');
    }
    return { state: 'replay', status: row.response_status, body: row.response_body };
  }
  throw new AppError('idempotencyKeyInFlight');
}

export async function finishIdempotent(
  db: Db,
  clientId: number,
  key: string,
  status: number,
  body: string,
): Promise<void> {
  await db
    .updateTable('checkout_idempotency_keys')
    .set({ status: 'done', response_status: status, response_body: body })
    .where('client_id', '=', clientId)
    .where('key', '=', key)
    .execute();
}

/** A failure of the service itself: the key is freed so that the client can retry it. */
export async function abandonIdempotent(db: Kysely<DB>, clientId: number, key: string): Promise<void> {
  await db
    .deleteFrom('checkout_idempotency_keys')
    .where('client_id', '=', clientId)
    .where('key', '=', key)
    .where('status', '=', 'in_flight')
    .execute();
}

export type KeyState =
  | { readonly state: 'gone' }
  | { readonly state: 'in_flight' }
  | { readonly state: 'done'; readonly status: number; readonly body: string };

/** Where a key of the client stands, for a request that found it in flight and waits for its answer. */
export async function readKeyState(
  db: Kysely<DB>,
  clientId: number,
  key: string,
  requestSha256: string,
): Promise<KeyState> {
  const row = await db
    .selectFrom('checkout_idempotency_keys')
    .select(['request_sha256', 'status', 'response_status', 'response_body'])
    .where('client_id', '=', clientId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return { state: 'gone' };
  if (row.request_sha256 !== requestSha256) throw new AppError('idempotencyKeyReused');
  if (row.status === 'in_flight' || row.response_status === null || row.response_body === null) {
    return { state: 'in_flight' };
  }
  return { state: 'done', status: row.response_status, body: row.response_body };
}
