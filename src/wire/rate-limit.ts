import type { FastifyReply } from 'fastify';

/**
 * Rate-limit headers (docs/decisions.md, "Checkout v1", "Errors, request ids and rate limits"),
 * as the IETF draft "RateLimit header fields for HTTP" writes them: `RateLimit-Limit` (the quota),
 * `RateLimit-Remaining` (what is left of it), `RateLimit-Reset` (seconds until the window ends, 0
 * when nothing is used) and `RateLimit-Policy` (`<quota>;w=<window seconds>`), on every answer of
 * an operation the service limits. A refusal (429, 503) carries `Retry-After` as well.
 */
export interface RateLimitState {
  readonly limit: number;
  readonly remaining: number;
  readonly resetSeconds: number;
  readonly windowSeconds: number;
}

export function sendRateLimit(reply: FastifyReply, s: RateLimitState): void {
  reply.header('RateLimit-Limit', String(s.limit));
  reply.header('RateLimit-Remaining', String(Math.max(0, s.remaining)));
  reply.header('RateLimit-Reset', String(Math.max(0, s.resetSeconds)));
  reply.header('RateLimit-Policy', `${s.limit};w=${s.windowSeconds}`);
}

const integer = (description: string) => ({ schema: { type: 'integer', minimum: 0 }, description });

/** The headers of a limited operation as the API document shows them. */
export const rateLimitHeadersDoc = {
  'RateLimit-Limit': integer('The quota of the limit that applies (e.g. failed authentications per window).'),
  'RateLimit-Remaining': integer('What is left of the quota in the current window.'),
  'RateLimit-Reset': integer('Seconds until the current window ends (0 when nothing of the quota is used).'),
  'RateLimit-Policy': {
    schema: { type: 'string' },
    description: 'The limit as `<quota>;w=<window seconds>`.',
  },
};

export const retryAfterHeaderDoc = {
  schema: { type: 'integer', minimum: 0 },
  description: 'Seconds to wait before trying again.',
};

/** An address throttle's budget (src/store/address-throttle.ts) as the headers tell it. */
export function sendThrottleBudget(
  reply: FastifyReply,
  b: { limit: number; remaining: number; resetMs: number; windowMs: number },
): void {
  sendRateLimit(reply, {
    limit: b.limit,
    remaining: b.remaining,
    resetSeconds: Math.ceil(b.resetMs / 1000),
    windowSeconds: Math.ceil(b.windowMs / 1000),
  });
}
