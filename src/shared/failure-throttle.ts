import { isIPv6 } from 'node:net';

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
 * token guessing" and "Merchant portal", sign-in throttle), or every request of one kind where each
 * costs someone else (the consumer portal's sign-in links, "Consumer portal"), as one process
 * counts them: the process's part of AddressThrottle (src/store/address-throttle.ts), which adds
 * every instance's count from the database. At most `maxTracked` addresses are remembered; the
 * oldest go first, so a flood of addresses costs bounded memory.
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

  /**
   * The address's budget as rate-limit headers tell it: the quota, what is left of it, and the
   * milliseconds until its window ends (0 when nothing is counted).
   */
  budget(
    key: string,
    nowMs: number,
  ): { limit: number; remaining: number; resetMs: number; windowMs: number } {
    const e = this.entries.get(key);
    const live = e !== undefined && nowMs < e.windowEndMs;
    return {
      limit: this.maxFailures,
      remaining: live ? Math.max(0, this.maxFailures - e.failures) : this.maxFailures,
      resetMs: live ? e.windowEndMs - nowMs : 0,
      windowMs: this.windowMs,
    };
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
