import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { AppContext } from '../context.js';
import { AppError } from '../shared/errors.js';
import { clientKey } from '../shared/failure-throttle.js';
import { AddressThrottle } from '../store/address-throttle.js';
import { sendThrottleBudget } from '../wire/rate-limit.js';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** `Authorization: Bearer <ADMIN_TOKEN>` on every operator call. */
export function requireAdmin(ctx: AppContext, request: FastifyRequest): void {
  const auth = request.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
  if (!m?.[1]) throw new AppError('unauthorized');
  const given = Buffer.from(hashToken(m[1].trim()), 'hex');
  const expected = Buffer.from(ctx.adminTokenHash, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new AppError('unauthorized');
}

/**
 * The operator API's guard: a client address over its failed authentications is refused with
 * 429 and Retry-After before its token is even looked at (else the limit would not slow guessing);
 * successful calls are never counted.
 */
export function operatorGuard(
  ctx: AppContext,
  registry: Registry,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const throttle = new AddressThrottle(
    ctx.database.db,
    'operator',
    ctx.config.operatorAuthMaxFailures,
    ctx.config.operatorAuthWindowSeconds * 1000,
  );
  const failures = new Counter({
    name: 'punchcard_operator_auth_failures_total',
    help: 'Operator API calls refused: wrong or missing token (refused), or from an address over its failures (throttled).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return async (request, reply) => {
    const key = clientKey(request.ip);
    const nowMs = ctx.clock.nowMs();
    const state = await throttle.check(key, nowMs);
    if (state.waitMs > 0) {
      failures.inc({ outcome: 'throttled' });
      sendThrottleBudget(reply, state.budget);
      reply.header('retry-after', String(Math.ceil(state.waitMs / 1000)));
      throw new AppError('operatorAuthThrottled');
    }
    try {
      requireAdmin(ctx, request);
    } catch (err) {
      failures.inc({ outcome: 'refused' });
      sendThrottleBudget(reply, await throttle.recordFailure(key, nowMs));
      throw err;
    }
    // Every answer tells the address's budget of failed authentications (RateLimit headers).
    sendThrottleBudget(reply, state.budget);
  };
}
