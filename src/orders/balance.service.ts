import {
  type TopUpRefusal,
  checkTopUp,
  planCheckoutTopUp,
  remainingTopUp,
} from '../ledger/rules/checkout-rules.js';
import { AppError, type ErrorName } from '../shared/errors.js';
import { monthStartUtcMs } from '../shared/time.js';
import { profileTags } from '../cards/profile.store.js';
import { bookBalanceMovement } from './balance-booking.js';
import {
  liabilityAccount,
  liveReservedMinor,
  newTransactionId,
  readProfileBalance,
  resolveProfileReference,
  topUpsSince,
} from './balance.store.js';
import type { KeepAnswer } from './keyed-answer.js';
import type { CheckoutCaller, CheckoutDeps } from './order.service.js';

/** Profile read and top-ups of checkout v1. */

export interface ProfileAnswer {
  fullName: string | null;
  language: string | null;
  balance: {
    availableAmount: number;
    totalAmount: number;
    currency: string;
    remainingTopUpAmount: number | null;
    config: {
      isTopUpAllowed: boolean;
      isChargeAllowed: boolean;
      maxAmount: number | null;
      maxSingleTopUpAmount: number | null;
      minSingleTopUpAmount: number | null;
      maxMonthlyTopUpAmount: number | null;
    };
  };
  tags: { id: number; name: string }[];
  partner: { userId: string } | null;
}

export async function profileOf(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  reference: string,
): Promise<number> {
  const ref = await resolveProfileReference(deps.db, caller.merchantId, reference, deps.clock.nowMs());
  if (!ref) throw new AppError('profileNotFound');
  return ref.profileId;
}

export async function readProfile(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  reference: string,
): Promise<ProfileAnswer> {
  const nowMs = deps.clock.nowMs();
  const profileId = await profileOf(deps, caller, reference);
  const p = await readProfileBalance(deps.db, caller.merchantId, profileId);
  if (!p) throw new AppError('profileNotFound');
  const [reserved, month, tags] = await Promise.all([
    liveReservedMinor(deps.db, profileId, nowMs),
    topUpsSince(deps.db, p.accountId, monthStartUtcMs(caller.timeZone, nowMs)),
    profileTags(deps.db, profileId),
  ]);
  return {
    fullName: p.fullName,
    language: p.language,
    balance: {
      availableAmount: p.balanceMinor - reserved,
      totalAmount: p.balanceMinor,
      currency: p.currency,
      remainingTopUpAmount: remainingTopUp({
        limits: p.limits,
        balanceMinor: p.balanceMinor,
        monthToDateMinor: month,
      }),
      config: { ...p.limits },
    },
    tags,
    partner: p.partnerUserId === null ? null : { userId: p.partnerUserId },
  };
}

const TOP_UP_REFUSALS: Record<TopUpRefusal, ErrorName> = {
  top_up_not_allowed: 'topUpNotAllowed',
  below_minimum: 'topUpBelowMinimum',
  above_single_maximum: 'topUpAboveMaximum',
  above_maximum_balance: 'balanceAboveMaximum',
  monthly_limit_exceeded: 'monthlyTopUpExceeded',
};

export interface TopUpAnswer {
  transactionId: string;
  status: 'completed';
  amount: number;
  currency: string;
  oldAmount: number;
  newAmount: number;
}

/**
 * A top-up, under the profile's lock: every limit is checked on figures nobody else can move.
 * Under an Idempotency-Key, `keep` stores the answer in the transaction that books it.
 */
export async function topUp(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  reference: string,
  input: { amount: number; currency: string },
  keep?: KeepAnswer,
): Promise<TopUpAnswer> {
  const nowMs = deps.clock.nowMs();
  const profileId = await profileOf(deps, caller, reference);
  const currency = input.currency.trim().toUpperCase();
  const liability = await liabilityAccount(deps, caller.merchantId, currency);
  const answer = await deps.db.transaction().execute(async (trx) => {
    const p = await readProfileBalance(trx, caller.merchantId, profileId, { forUpdate: true });
    if (!p) throw new AppError('profileNotFound');
    if (p.currency !== currency) throw new AppError('currencyMismatch');
    const month = await topUpsSince(trx, p.accountId, monthStartUtcMs(caller.timeZone, nowMs));
    const check = checkTopUp({
      amountMinor: input.amount,
      limits: p.limits,
      balanceMinor: p.balanceMinor,
      monthToDateMinor: month,
    });
    if (!check.ok) throw new AppError(TOP_UP_REFUSALS[check.reason]);
    const id = newTransactionId(nowMs);
    const { posted, events } = await bookBalanceMovement(
      trx,
      {
        plan: planCheckoutTopUp({
          accountId: p.accountId,
          liabilityAccountId: liability,
          amountMinor: input.amount,
          maxAmount: p.limits.maxAmount,
        }),
        ledgerKey: `top_up:${id}`,
        transaction: {
          id,
          merchantId: caller.merchantId,
          profileId,
          kind: 'top_up',
          status: 'completed',
          amountMinor: input.amount,
          currency,
          orderId: null,
          reservationId: null,
        },
        event: { profileReference: reference, basketId: null },
      },
      nowMs,
    );
    if (posted.status !== 'posted') throw new AppError('balanceAboveMaximum');
    const body: TopUpAnswer = {
      transactionId: id,
      status: 'completed',
      amount: input.amount,
      currency,
      oldAmount: p.balanceMinor,
      newAmount: posted.balanceAfterMinor,
    };
    if (keep) await keep(trx, body);
    return { events, body };
  });
  if (answer.events > 0) deps.afterCommit();
  return answer.body;
}
