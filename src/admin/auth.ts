import { createHash, timingSafeEqual } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { AppContext } from '../context.js';
import { AppError } from '../shared/errors.js';

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
 * The client address an attacker cannot cheaply multiply: an IPv6 client usually holds a whole
 * /64, so its addresses count as one.
 */
export function clientKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  if (ip.toLowerCase().startsWith('::ffff:')) return ip.slice(7);
  const [head = '', tail = ''] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

/**
 * Failed authentications per client address in a fixed window (docs/decisions.md, "Operator
 * token guessing"). At most `maxTracked` addresses are remembered; the oldest go first, so a flood
 * of addresses costs bounded memory.
 */
export class FailureThrottle {
  private readonly entries = new Map<string, { failures: number; windowEndMs: number }>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly maxTracked = 100_000,
  ) {}

  /** Milliseconds the address must still wait, 0 when it may try. */
  blockedForMs(key: string, nowMs: number): number {
    const e = this.entries.get(key);
    if (!e) return 0;
    if (nowMs >= e.windowEndMs) {
      this.entries.delete(key);
      return 0;
    }
    return e.failures >= this.maxFailures ? e.windowEndMs - nowMs : 0;
  }

  recordFailure(key: string, nowMs: number): void {
    const e = this.entries.get(key);
    if (e && nowMs < e.windowEndMs) {
      e.failures += 1;
      return;
    }
    this.entries.delete(key);
    if (this.entries.size >= this.maxTracked) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { failures: 1, windowEndMs: nowMs + this.windowMs });
  }
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
  const throttle = new FailureThrottle(
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
    const waitMs = throttle.blockedForMs(key, nowMs);
    if (waitMs > 0) {
      failures.inc({ outcome: 'throttled' });
      reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
      throw new AppError('operatorAuthThrottled');
    }
    try {
      requireAdmin(ctx, request);
    } catch (err) {
      throttle.recordFailure(key, nowMs);
      failures.inc({ outcome: 'refused' });
      throw err;
    }
  };
}
