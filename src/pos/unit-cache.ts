import type { AppContext } from '../context.js';
import type { AuthenticatedUnit } from './auth.js';

/**
 * Recently authenticated terminals, for the three hot paths whose one write statement re-checks
 * what the entry says: the basket upload (`write_basket`: DevKey bound and not revoked, terminal
 * active, outlet, sortiment, rules version), the MD5 balance booking (`post_transfer`: DevKey
 * bound and not revoked, terminal active and not deactivated, checksumSecret, the V2 and
 * transactionId settings; migration 0009) and the MD5 grant (`grant_basket`: the same but the
 * transactionId setting; migration 0016). An entry is only a guess: a stale one makes the write
 * do nothing and the request start over with a fresh lookup, which answers 401 or 403 for a revoked
 * key or a deactivated terminal. Every other operation looks its terminal up afresh (auth.ts),
 * since it would act on the guess before any statement could check it. So no instance ever acts
 * on a deactivated terminal, a revoked key or a rotated secret, and instances keep no state that
 * matters.
 */
const TTL_MS = 60_000;
const MAX_ENTRIES = 20_000;

interface Entry {
  unit: AuthenticatedUnit;
  expiresAtMs: number;
}

const caches = new WeakMap<AppContext, Map<string, Entry>>();

function cacheOf(ctx: AppContext): Map<string, Entry> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new Map();
    caches.set(ctx, cache);
  }
  return cache;
}

const keyOf = (devKey: string, unitId: string) => `${devKey}\u0000${unitId}`;

export function cachedUnit(
  ctx: AppContext,
  devKey: string,
  unitId: string,
  nowMs: number,
): AuthenticatedUnit | null {
  const cache = cacheOf(ctx);
  const key = keyOf(devKey, unitId);
  const entry = cache.get(key);
  if (!entry) return null;
  if (entry.expiresAtMs <= nowMs) {
    cache.delete(key);
    return null;
  }
  return entry.unit;
}

export function rememberUnit(ctx: AppContext, devKey: string, unit: AuthenticatedUnit, nowMs: number): void {
  const cache = cacheOf(ctx);
  if (cache.size >= MAX_ENTRIES) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(keyOf(devKey, unit.unitId), { unit, expiresAtMs: nowMs + TTL_MS });
}

export function forgetUnit(ctx: AppContext, devKey: string, unitId: string): void {
  cacheOf(ctx).delete(keyOf(devKey, unitId));
}
