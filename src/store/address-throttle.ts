import type { Kysely } from 'kysely';
import { FailureThrottle } from '../shared/failure-throttle.js';
import { type AddressWindow, addressWindow, countAddressFailure } from './address-failures.store.js';
import type { DB } from './schema.js';

/** An address's budget as the RateLimit headers tell it (src/wire/rate-limit.ts). */
export interface AddressBudget {
  readonly limit: number;
  readonly remaining: number;
  /** Milliseconds until the address's window ends; 0 when nothing is counted. */
  readonly resetMs: number;
  readonly windowMs: number;
}

/** What an address may do now: how long it must still wait (0: it may try), and its budget. */
export interface AddressState {
  readonly waitMs: number;
  readonly budget: AddressBudget;
}

/**
 * Failures per client address, counted in this process and in the database (docs/decisions.md,
 * "Throttles per client address shared by the instances"). The process's own count
 * (FailureThrottle) is read and written without waiting, so within a process a check and the
 * failure it leads to are never split by another request's; the database's count is every
 * instance's together, read before the check and written after a failure. An address is refused
 * when either count is spent, and its budget is the smaller of the two.
 */
export class AddressThrottle {
  readonly #local: FailureThrottle;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly scope: string,
    private readonly maxFailures: number,
    private readonly windowMs: number,
  ) {
    this.#local = new FailureThrottle(maxFailures, windowMs);
  }

  /** The address's state, both counts read. */
  async check(key: string, nowMs: number): Promise<AddressState> {
    const shared = await addressWindow(this.db, this.scope, key, nowMs);
    return this.#state(key, nowMs, shared);
  }

  /**
   * Counts one failure: in this process at once (before this call's first wait), then in the
   * database. The budget after it.
   */
  async recordFailure(key: string, nowMs: number): Promise<AddressBudget> {
    this.#local.recordFailure(key, nowMs);
    const shared = await countAddressFailure(this.db, this.scope, key, nowMs, this.windowMs);
    return this.#state(key, nowMs, shared).budget;
  }

  #state(key: string, nowMs: number, shared: AddressWindow | null): AddressState {
    const local = this.#local.budget(key, nowMs);
    const live = shared !== null && shared.windowEndMs > nowMs ? shared : null;
    const sharedWaitMs = live !== null && live.failures >= this.maxFailures ? live.windowEndMs - nowMs : 0;
    return {
      waitMs: Math.max(this.#local.blockedForMs(key, nowMs), sharedWaitMs),
      budget: {
        limit: this.maxFailures,
        remaining: Math.min(local.remaining, Math.max(0, this.maxFailures - (live?.failures ?? 0))),
        resetMs: Math.max(local.resetMs, live === null ? 0 : live.windowEndMs - nowMs),
        windowMs: this.windowMs,
      },
    };
  }
}
