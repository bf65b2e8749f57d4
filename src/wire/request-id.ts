import { randomFillSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { rateLimitHeadersDoc, retryAfterHeaderDoc } from './rate-limit.js';
import { isObject } from './json-object.js';

/**
 * Request ids (docs/decisions.md, "Checkout v1", "Errors, request ids and rate limits"): every
 * answer of every interface carries `Request-Id`, the incoming `X-Request-Id` when it is sane (1
 * to 128 characters of letters, digits and `-_.:/+=@`, so it cannot split a header or a log
 * line), else one made here: `req_` and 24 random base32 characters. The id is Fastify's
 * `request.id`, so every log line of the request names it (`requestId`), and JSON error bodies
 * carry it as `error.requestId`.
 */

export const REQUEST_ID_HEADER = 'Request-Id';

const SANE = /^[A-Za-z0-9\-_.:/+=@]{1,128}$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * Random bytes drawn 4 KiB at a time: one call to the system's generator per 170 ids instead of
 * one per request, which cost about 20 µs of every upload (docs/performance.md).
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

export function newRequestId(): string {
  if (poolAt + 24 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let out = 'req_';
  for (let i = poolAt; i < poolAt + 24; i++) out += BASE32[(pool[i] ?? 0) % 32];
  poolAt += 24;
  return out;
}

/** Fastify's `genReqId`: the caller's id when sane, else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  const value = Array.isArray(given) ? given[0] : given;
  const trimmed = value?.trim() ?? '';
  return SANE.test(trimmed) ? trimmed : newRequestId();
}

/** The header as the API document shows it on every answer. */
export const requestIdHeaderDoc = {
  schema: { type: 'string' },
  description:
    'The request’s id: the X-Request-Id sent when it is 1 to 128 characters of letters, digits and ' +
    '`-_.:/+=@`, else one made (`req_` and 24 characters). Error bodies of the JSON APIs name it too.',
};

/**
 * Adds the headers answers carry to the API document: Request-Id on every response,
 * `Retry-After` on every 429 and 503, the RateLimit headers on every response of the operations
 * the service limits per client address (the operator API, the portal's sign-in).
 */
export function documentRequestId<T>(doc: T): T {
  const paths = isObject(doc) && isObject(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      const limited =
        path.startsWith('/api/admin/v1/') || (path === '/portal/api/v1/session' && method === 'post');
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!isObject(response)) continue;
        const headers = isObject(response.headers) ? response.headers : {};
        response.headers = {
          [REQUEST_ID_HEADER]: requestIdHeaderDoc,
          ...(limited ? rateLimitHeadersDoc : {}),
          ...(status === '429' || status === '503' ? { 'Retry-After': retryAfterHeaderDoc } : {}),
          ...headers,
        };
      }
    }
  }
  return doc;
}
