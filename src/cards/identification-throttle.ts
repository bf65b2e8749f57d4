import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import {
  couponCodesAmong,
  giveBackIdentificationBudget,
  takeIdentificationBudget,
} from './identification.store.js';

/**
 * Limits on guessing one-time passwords (docs/security.md, "SecurityTokens, secrets and keys",
 * where the arithmetic is). An OTP is 8 digits and lives 5 minutes; an identifier of that shape
 * that identifies nobody is a failed identification. Before any lookup, each OTP-shaped
 * identifier takes one unit of budget from its terminal and from its merchant in the current
 * fixed window; identifiers that turn out to be live OTPs or coupon codes of the merchant's
 * campaigns give theirs back. Taking before looking makes the limits hold under any concurrency,
 * and the counters live in the database, so they hold across instances.
 */
export const OTP_SHAPE = /^\d{8}$/;

export const IDENTIFICATION_LIMITS = {
  /** Fixed windows of this length. */
  windowMs: 60_000,
  /** Failed OTP-shaped identifiers per terminal (or other caller) and window. */
  perCaller: 5,
  /** Failed OTP-shaped identifiers per merchant and window, all its terminals together. */
  perMerchant: 10,
  /** OTP-shaped identifiers that are no card, in one request (more: 400 / 1049, nothing looked up). */
  perRequest: 3,
} as const;

/** What the throttle reports, for the Prometheus metrics (src/ops/metrics.ts). */
export interface IdentificationObserver {
  failed(count: number): void;
  refused(reason: 'caller_limit' | 'merchant_limit' | 'too_many_candidates'): void;
}

export interface ThrottleCaller {
  readonly merchantId: number;
  /** `unit:<trackingUnitId>`, or another caller of the same merchant (a checkout client). */
  readonly subject: string;
  readonly observer?: IdentificationObserver | undefined;
  /**
   * A basket one of the merchant's tills uploaded before, evaluated again by the dry run over recent
   * baskets: its entries are what the till sent then, not guesses, and count against no limit.
   */
  readonly storedBasket?: boolean;
}

/**
 * Runs `lookup` over the OTP-shaped candidates under the limits. `lookup` answers which of them
 * identified a consumer; the rest count as failed unless they are coupon codes of the merchant.
 * 400 / 1049 for more than `perRequest` candidates, 429 / 1048 when a budget is spent; in both
 * cases nothing is looked up.
 */
export async function throttledIdentification(
  db: Kysely<DB>,
  caller: ThrottleCaller,
  candidates: readonly string[],
  nowMs: number,
  lookup: (candidates: readonly string[]) => Promise<ReadonlySet<string>>,
): Promise<ReadonlySet<string>> {
  const shaped = candidates.filter((c) => OTP_SHAPE.test(c));
  if (shaped.length === 0 || caller.storedBasket === true) return lookup(candidates);
  const limits = IDENTIFICATION_LIMITS;
  if (shaped.length > limits.perRequest) {
    caller.observer?.refused('too_many_candidates');
    throw new AppError('tooManyPasswordCandidates');
  }
  const windowStart = new Date(Math.floor(nowMs / limits.windowMs) * limits.windowMs);
  // The refusal says when the window ends (Retry-After).
  const throttled = () =>
    new AppError('identificationThrottled', undefined, {
      details: { retryAfterSeconds: Math.ceil((windowStart.getTime() + limits.windowMs - nowMs) / 1000) },
    });
  const n = shaped.length;
  if (
    !(await takeIdentificationBudget(db, caller.merchantId, caller.subject, windowStart, n, limits.perCaller))
  ) {
    caller.observer?.refused('caller_limit');
    throw throttled();
  }
  if (
    !(await takeIdentificationBudget(db, caller.merchantId, 'merchant', windowStart, n, limits.perMerchant))
  ) {
    await giveBackIdentificationBudget(db, caller.merchantId, caller.subject, windowStart, n);
    caller.observer?.refused('merchant_limit');
    throw throttled();
  }
  let found: ReadonlySet<string>;
  try {
    found = await lookup(candidates);
  } catch (err) {
    await giveBackIdentificationBudget(db, caller.merchantId, caller.subject, windowStart, n);
    await giveBackIdentificationBudget(db, caller.merchantId, 'merchant', windowStart, n);
    throw err;
  }
  const missed = shaped.filter((c) => !found.has(c));
  const coupons =
    missed.length === 0 ? new Set<string>() : await couponCodesAmong(db, caller.merchantId, missed);
  const failed = missed.filter((c) => !coupons.has(c)).length;
  await giveBackIdentificationBudget(db, caller.merchantId, caller.subject, windowStart, n - failed);
  await giveBackIdentificationBudget(db, caller.merchantId, 'merchant', windowStart, n - failed);
  if (failed > 0) caller.observer?.failed(failed);
  return found;
}
