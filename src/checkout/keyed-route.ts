import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type KeepAnswer, answerUnderKey } from '../orders/keyed-answer.js';
import { AppError } from '../shared/errors.js';
import type { Deps } from '../store/deps.js';
import { errorPayload } from '../wire/error-render.js';
import { checkoutCaller } from './checkout-auth.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The checkout's writes besides orders under an optional `Idempotency-Key` (docs/decisions.md,
 * "Checkout v1", "Idempotency"): with a key, the same method, path and body replays the first
 * answer byte for byte with `Idempotent-Replayed: true` and books nothing more; another request
 * under the key is refused (422 `idempotency_key_reused`). Without a key the write runs as it is.
 */

/** The Idempotency-Key header, null when absent; a malformed one is refused (400). */
export function idempotencyKeyOf(request: FastifyRequest): string | null {
  const value = request.headers['idempotency-key'];
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const key = raw.trim();
  if (key === '' || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError('idempotencyKeyInvalid');
  }
  return key;
}

/** What identifies a keyed request: method, path (with its query) and the body's bytes. */
export function requestSha256(request: Pick<FastifyRequest, 'method' | 'url' | 'rawBody'>): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n`)
    .update(request.rawBody ?? '', 'utf8')
    .digest('hex');
}

/**
 * Answers `status` with what `work` returns, under the request's Idempotency-Key when it has one.
 * `work` hands the keeper to its use case, which stores the answer in its booking transaction.
 */
export async function sendKeyed(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: Deps,
  status: number,
  work: (keep?: KeepAnswer) => Promise<unknown>,
): Promise<FastifyReply> {
  const key = idempotencyKeyOf(request);
  if (key === null) return reply.code(status).send(await work());
  const caller = checkoutCaller(request);
  const kept = await answerUnderKey(
    deps,
    { clientId: caller.clientId, key, requestSha256: requestSha256(request) },
    status,
    work,
    (err) => ({
      status: err.entry.status,
      text: errorPayload(err, { pos: false, format: 'json' }, null, request.id).text,
    }),
  );
  if (kept.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(kept.status).type(JSON_TYPE).send(kept.body);
}
