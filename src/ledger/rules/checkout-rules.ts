import { MAX_BALANCE_MINOR, type PlannedTransfer } from './posting-rules.js';

/**
 * Posting rules of checkout v1, pure (docs/decisions.md, "Checkout v1: balance"): top-up limits
 * and refunds. Reservations are holds on the profile's account (TigerBeetle's pending transfers):
 * the money stays on the account, and what is held by live reservations is not available to anyone
 * without the reservation's reference. The charge of an order, with or without a reservation, is
 * planned and booked by the orders' booking (src/orders/sql/book_orders.sql), its one home.
 */

export interface ProfileLimits {
  readonly isTopUpAllowed: boolean;
  readonly isChargeAllowed: boolean;
  readonly maxAmount: number | null;
  readonly maxSingleTopUpAmount: number | null;
  readonly minSingleTopUpAmount: number | null;
  readonly maxMonthlyTopUpAmount: number | null;
}

export type TopUpRefusal =
  | 'top_up_not_allowed'
  | 'below_minimum'
  | 'above_single_maximum'
  | 'above_maximum_balance'
  | 'monthly_limit_exceeded';

export interface TopUpInput {
  readonly amountMinor: number;
  readonly limits: ProfileLimits;
  readonly balanceMinor: number;
  /** Top-ups booked to the profile in this calendar month (the merchant's time zone). */
  readonly monthToDateMinor: number;
}

/** Every limit of the profile, in the order an integrator reads them in the profile. */
export function checkTopUp(input: TopUpInput): { ok: true } | { ok: false; reason: TopUpRefusal } {
  const { amountMinor: amount, limits } = input;
  if (!limits.isTopUpAllowed) return { ok: false, reason: 'top_up_not_allowed' };
  if (limits.minSingleTopUpAmount !== null && amount < limits.minSingleTopUpAmount) {
    return { ok: false, reason: 'below_minimum' };
  }
  if (limits.maxSingleTopUpAmount !== null && amount > limits.maxSingleTopUpAmount) {
    return { ok: false, reason: 'above_single_maximum' };
  }
  const max = Math.min(limits.maxAmount ?? MAX_BALANCE_MINOR, MAX_BALANCE_MINOR);
  if (input.balanceMinor + amount > max) return { ok: false, reason: 'above_maximum_balance' };
  if (
    limits.maxMonthlyTopUpAmount !== null &&
    input.monthToDateMinor + amount > limits.maxMonthlyTopUpAmount
  ) {
    return { ok: false, reason: 'monthly_limit_exceeded' };
  }
  return { ok: true };
}

/** What top-ups may still add this month: the smaller of the monthly room and the maxAmount room. */
/**
 * What top-ups may still add: the smallest room of the configured limits, 0 when top-ups are not
 * allowed, null when no limit is configured ("no limit" is null in every answer, never the
 * service's own ceiling on a balance).
 */
export function remainingTopUp(input: Omit<TopUpInput, 'amountMinor'>): number | null {
  const { limits } = input;
  if (!limits.isTopUpAllowed) return 0;
  if (
    limits.maxAmount === null &&
    limits.maxMonthlyTopUpAmount === null &&
    limits.maxSingleTopUpAmount === null
  ) {
    return null;
  }
  const max = Math.min(limits.maxAmount ?? MAX_BALANCE_MINOR, MAX_BALANCE_MINOR);
  let room = Math.max(0, max - input.balanceMinor);
  if (limits.maxMonthlyTopUpAmount !== null) {
    room = Math.min(room, Math.max(0, limits.maxMonthlyTopUpAmount - input.monthToDateMinor));
  }
  if (limits.maxSingleTopUpAmount !== null) room = Math.min(room, limits.maxSingleTopUpAmount);
  return room;
}

export function planCheckoutTopUp(input: {
  accountId: number;
  liabilityAccountId: number;
  amountMinor: number;
  maxAmount: number | null;
}): PlannedTransfer {
  const max = Math.min(input.maxAmount ?? MAX_BALANCE_MINOR, MAX_BALANCE_MINOR);
  return {
    kind: 'top_up',
    debitAccountId: input.liabilityAccountId,
    creditAccountId: input.accountId,
    amountMinor: input.amountMinor,
    customerAccountId: input.accountId,
    customerDeltaMinor: input.amountMinor,
    guardMinBalanceMinor: 0,
    guardMaxBalanceMinor: max - input.amountMinor,
  };
}

/** A refund gives the charged amount back; maxAmount does not stop it (the money was the profile's). */
export function planRefund(input: {
  accountId: number;
  liabilityAccountId: number;
  amountMinor: number;
}): PlannedTransfer {
  return {
    kind: 'refund',
    debitAccountId: input.liabilityAccountId,
    creditAccountId: input.accountId,
    amountMinor: input.amountMinor,
    customerAccountId: input.accountId,
    customerDeltaMinor: input.amountMinor,
    guardMinBalanceMinor: 0,
    guardMaxBalanceMinor: null,
  };
}
