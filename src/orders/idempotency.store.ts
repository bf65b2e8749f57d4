import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';

/**
 * Idempotency keys of checkout orders, Stripe's semantics (docs/decisions.md, "Checkout v1:
 * idempotency"): per client, kept 24 hours. The row is inserted before the work starts (the
 * primary key makes one of two concurrent requests the first), with the request's own claim; the
 * answer is written under that claim in the transaction that books the order, or, for a refusal,
 * right after it. A claim older than CLAIM_LEASE_MS whose request never finished (its server
 * stopped, its database connection broke before it could free the key) is taken over by the same
 * request sent again; the request that held it, should it still come to book, finds its claim
 * gone and its booking undone.
 */

type Db = Kysely<DB> | Transaction<DB>;

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

/** How long a request's claim on a key holds; past it the same request may take the key over. */
export const CLAIM_LEASE_MS = 60_000;

/** A key in flight whose claim is past its lease: its request never finished. */
function claimRanOut(row: { status: string; created_at: Date }, nowMs: number): boolean {
  return row.status === 'in_flight' && row.created_at.getTime() + CLAIM_LEASE_MS <= nowMs;
}

export type IdempotencyStart =
  | { readonly state: 'new'; readonly claim: string }
  | { readonly state: 'replay'; readonly status: number; readonly body: string };

export async function beginIdempotent(
  db: Kysely<DB>,
  clientId: number,
  key: string,
  requestSha256: string,
  nowMs: number,
): Promise<IdempotencyStart> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const claim = randomUUID();
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
        claim,
      })
      .onConflict((oc) => oc.columns(['client_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (inserted) return { state: 'new', claim };
    const row = await db
      .selectFrom('checkout_idempotency_keys')
      .select([
        'request_sha256',
        'status',
        'response_status',
        'response_body',
        'expires_at',
        'created_at',
        'claim',
      ])
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
    if (claimRanOut(row, nowMs)) {
      // Taken over only as it was read, so that of two requests taking it over one wins.
      const taken = await db
        .updateTable('checkout_idempotency_keys')
        .set({ claim, created_at: new Date(nowMs) })
        .where('client_id', '=', clientId)
        .where('key', '=', key)
        .where('status', '=', 'in_flight')
        .where('created_at', '=', row.created_at)
        .where((w) => (row.claim === null ? w('claim', 'is', null) : w('claim', '=', row.claim)))
        .returning('key')
        .executeTakeFirst();
      if (taken) return { state: 'new', claim };
      continue;
    }
    if (row.status === 'in_flight' || row.response_status === null || row.response_body === null) {
      throw new AppError('idempotencyKeyInFlight');
    }
    return { state: 'replay', status: row.response_status, body: row.response_body };
  }
  throw new AppError('idempotencyKeyInFlight');
}

/**
 * Keeps the answer under the request's claim. A claim taken over meanwhile (the request outlived
 * its lease and was sent again) keeps nothing and fails: in a booking transaction, the booking is
 * undone, and the request sent again books in its place.
 */
export async function finishIdempotent(
  db: Db,
  clientId: number,
  key: string,
  claim: string,
  status: number,
  body: string,
): Promise<void> {
  const kept = await db
    .updateTable('checkout_idempotency_keys')
    .set({ status: 'done', response_status: status, response_body: body })
    .where('client_id', '=', clientId)
    .where('key', '=', key)
    .where('status', '=', 'in_flight')
    .where('claim', '=', claim)
    .executeTakeFirst();
  if (kept.numUpdatedRows !== 1n) throw new AppError('idempotencyKeyInFlight');
}

/** A failure of the service itself: the request's claim is freed so that the client can retry. */
export async function abandonIdempotent(
  db: Kysely<DB>,
  clientId: number,
  key: string,
  claim: string,
): Promise<void> {
  await db
    .deleteFrom('checkout_idempotency_keys')
    .where('client_id', '=', clientId)
    .where('key', '=', key)
    .where('status', '=', 'in_flight')
    .where('claim', '=', claim)
    .execute();
}

export type KeyState =
  | { readonly state: 'gone' }
  /** In flight under a claim past its lease: the same request sent again takes it over. */
  | { readonly state: 'lapsed' }
  | { readonly state: 'in_flight' }
  | { readonly state: 'done'; readonly status: number; readonly body: string };

/**
 * Where a key of the client stands, for a request that found it in flight and waits for its
 * answer; a claim past its lease is `lapsed` (beginIdempotent takes it over).
 */
export async function readKeyState(
  db: Kysely<DB>,
  clientId: number,
  key: string,
  requestSha256: string,
  nowMs: number,
): Promise<KeyState> {
  const row = await db
    .selectFrom('checkout_idempotency_keys')
    .select(['request_sha256', 'status', 'response_status', 'response_body', 'created_at'])
    .where('client_id', '=', clientId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return { state: 'gone' };
  if (row.request_sha256 !== requestSha256) throw new AppError('idempotencyKeyReused');
  if (claimRanOut(row, nowMs)) return { state: 'lapsed' };
  if (row.status === 'in_flight' || row.response_status === null || row.response_body === null) {
    return { state: 'in_flight' };
  }
  return { state: 'done', status: row.response_status, body: row.response_body };
}
