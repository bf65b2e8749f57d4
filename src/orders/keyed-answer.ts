import type { Transaction } from 'kysely';
import { AppError, errors } from '../shared/errors.js';
import type { Deps } from '../store/deps.js';
import type { DB } from '../store/schema.js';
import {
  type IdempotencyStart,
  abandonIdempotent,
  beginIdempotent,
  finishIdempotent,
  readKeyState,
} from './idempotency.store.js';

/**
 * Idempotency-Key on the checkout's other writes (top-ups, reservations and their cancellation,
 * refunds, webhook registrations; docs/decisions.md "Checkout v1", "Idempotency"): the same
 * mechanism and table as orders. The key row is taken before the work; the work keeps its answer
 * for the key in the transaction that books it (`KeepAnswer`), so "booked" and "answer kept"
 * cannot part; a refusal of the work is kept right after it; an unexpected failure frees the key.
 */

/** Keeps the answer of a keyed request, called by the use case inside the transaction that books. */
export type KeepAnswer = (trx: Transaction<DB>, body: unknown) => Promise<void>;

/** A keyed request's answer: status and text as kept, and whether it replays an earlier one. */
export interface KeyedAnswer {
  readonly status: number;
  readonly body: string;
  readonly replayed: boolean;
}

export interface KeyedRequest {
  readonly clientId: number;
  readonly key: string;
  /** SHA-256 of what identifies the request: method, path and body bytes. */
  readonly requestSha256: string;
}

/** How long a request waits for the answer of the same request in flight before it answers 409. */
export const IN_FLIGHT_WAIT_MS = 10_000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The key taken, or the answer it already has. A request that finds the same request still in
 * flight waits for its answer (polling the key row, so it works across server processes) and
 * replays it: retries and concurrent duplicates get the first answer, not a 409. Only a first
 * request still running after IN_FLIGHT_WAIT_MS answers 409 `idempotency_key_in_flight`.
 */
export async function takeKey(deps: Deps, keyed: KeyedRequest): Promise<IdempotencyStart> {
  const { clientId, key, requestSha256 } = keyed;
  const started = Date.now();
  let delay = 5;
  for (;;) {
    try {
      return await beginIdempotent(deps.db, clientId, key, requestSha256, deps.clock.nowMs());
    } catch (err) {
      if (!(err instanceof AppError) || err.entry !== errors.idempotencyKeyInFlight) throw err;
    }
    for (;;) {
      if (Date.now() - started > IN_FLIGHT_WAIT_MS) throw new AppError('idempotencyKeyInFlight');
      await pause(delay);
      delay = Math.min(delay * 2, 100);
      const now = await readKeyState(deps.db, clientId, key, requestSha256, deps.clock.nowMs());
      if (now.state === 'done') return { state: 'replay', status: now.status, body: now.body };
      if (now.state === 'gone' || now.state === 'lapsed') break;
    }
  }
}

/**
 * Runs `work` under the key: `work` gets the keeper to call in its booking transaction with the
 * answer's body (a use case that books nothing may not call it: its answer is kept after it). A
 * refusal (AppError) is kept as `render` shows it, so the same request gets it again.
 */
export async function answerUnderKey(
  deps: Deps,
  keyed: KeyedRequest,
  status: number,
  work: (keep: KeepAnswer) => Promise<unknown>,
  render: (err: AppError) => { readonly status: number; readonly text: string },
): Promise<KeyedAnswer> {
  const start = await takeKey(deps, keyed);
  if (start.state === 'replay') return { status: start.status, body: start.body, replayed: true };
  const { clientId, key } = keyed;
  const { claim } = start;
  let kept: string | null = null;
  const keep: KeepAnswer = async (trx, body) => {
    kept = JSON.stringify(body);
    await finishIdempotent(trx, clientId, key, claim, status, kept);
  };
  try {
    const body = await work(keep);
    if (kept !== null) return { status, body: kept, replayed: false };
    const text = JSON.stringify(body);
    await finishIdempotent(deps.db, clientId, key, claim, status, text);
    return { status, body: text, replayed: false };
  } catch (err) {
    if (!(err instanceof AppError)) {
      // Freed when the database answers; otherwise the claim runs out and the key is taken over.
      await abandonIdempotent(deps.db, clientId, key, claim).catch(() => undefined);
      throw err;
    }
    const shown = render(err);
    await finishIdempotent(deps.db, clientId, key, claim, shown.status, shown.text);
    return { status: shown.status, body: shown.text, replayed: false };
  }
}
