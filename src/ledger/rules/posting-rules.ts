import { type Decimal, decimalPlaces, decimalToMinor, parseDecimal } from '../../shared/money.js';

/**
 * Posting rules of the stored-value ledger, as pure functions: what a top-up, a withdrawal or a
 * merge books, and why it may not. Expected refusals are values; the HTTP edge maps them to
 * error ids. Nothing here reads a clock or a database: `nowMs` and the account state come in.
 */

export type RefusalReason =
  'invalid_amount' | 'card_unusable' | 'insufficient_balance' | 'above_maximum_balance' | 'balance_not_zero';

export interface Refusal {
  readonly ok: false;
  readonly reason: RefusalReason;
}

export type CardState = 'registered' | 'locked' | 'released';
export type CardCondition = 'usable' | 'locked' | 'expired' | 'released';

/** The state a card shows: `expired` is derived from `expiresAtMs`, never stored. */
export function cardCondition(
  card: { state: CardState; expiresAtMs: number | null },
  nowMs: number,
): CardCondition {
  if (card.state === 'locked') return 'locked';
  if (card.state === 'released') return 'released';
  if (card.expiresAtMs !== null && card.expiresAtMs <= nowMs) return 'expired';
  return 'usable';
}

/** The state a card shows on the wire: registered, locked, released or expired. */
export function cardStateName(condition: CardCondition): 'registered' | 'locked' | 'released' | 'expired' {
  return condition === 'usable' ? 'registered' : condition;
}

/**
 * An amount of addBalance or withdrawBalance as the URL carries it: greater than zero and with at
 * most two decimals (13006). Leading "+" and exponents are refused too: the text is what the
 * SecurityToken covers, so it must be a plain decimal.
 */
export function parseBalanceAmount(
  text: string,
  exponent: number,
): { ok: true; amountMinor: number } | Refusal {
  const refused: Refusal = { ok: false, reason: 'invalid_amount' };
  if (!/^\d{1,15}(\.\d+)?$/.test(text)) return refused;
  const d: Decimal | null = parseDecimal(text);
  if (!d || d.units <= 0n) return refused;
  if (decimalPlaces(d) > Math.min(2, exponent)) return refused;
  const minor = Number(decimalToMinor(d, exponent));
  if (!Number.isSafeInteger(minor) || minor <= 0) return refused;
  return { ok: true, amountMinor: minor };
}

/** The customer account an operation addresses, as read before the posting. */
export interface CustomerAccount {
  readonly accountId: number;
  readonly balanceMinor: number;
  readonly open: boolean;
  /** The profile's `maxAmount` when the account is a profile's (null: no limit). */
  readonly maxBalanceMinor: number | null;
}

/**
 * A transfer to book, with the guard the store must check on the customer account in the same
 * statement that changes it, so that a concurrent posting can never make the decision wrong.
 */
export interface PlannedTransfer {
  readonly kind: 'top_up' | 'withdrawal' | 'merge' | 'charge' | 'refund';
  readonly debitAccountId: number;
  readonly creditAccountId: number;
  readonly amountMinor: number;
  /** The customer account whose cached balance changes, and by how much. */
  readonly customerAccountId: number;
  readonly customerDeltaMinor: number;
  /** Book only if the customer balance before is at least this ... */
  readonly guardMinBalanceMinor: number;
  /** ... and at most this (null: no upper bound). */
  readonly guardMaxBalanceMinor: number | null;
}

export type PlanResult = { ok: true; transfer: PlannedTransfer } | Refusal;

/**
 * The largest balance an account may hold: 15 digits of minor units (9,999,999,999,999.99 EUR).
 * The POS wire writes amounts as decimal JSON numbers, and every decimal of at most 15 significant
 * digits survives the trip through a double exactly; a top-up beyond it is refused like one beyond
 * maxAmount.
 */
export const MAX_BALANCE_MINOR = 999_999_999_999_999;

/**
 * Top-up (addBalance): the merchant's stored-value liability account is debited, the customer
 * account credited. Refused when the card cannot be used or the balance would pass maxAmount.
 */
export function planTopUp(input: {
  condition: CardCondition;
  account: CustomerAccount;
  liabilityAccountId: number;
  amountMinor: number;
}): PlanResult {
  const { condition, account, amountMinor } = input;
  if (amountMinor <= 0 || !Number.isSafeInteger(amountMinor)) return { ok: false, reason: 'invalid_amount' };
  if (condition !== 'usable' || !account.open) return { ok: false, reason: 'card_unusable' };
  // Beside the profile's maxAmount, no balance passes what the wire writes exactly.
  const max = Math.min(account.maxBalanceMinor ?? MAX_BALANCE_MINOR, MAX_BALANCE_MINOR);
  if (account.balanceMinor + amountMinor > max) {
    return { ok: false, reason: 'above_maximum_balance' };
  }
  return {
    ok: true,
    transfer: {
      kind: 'top_up',
      debitAccountId: input.liabilityAccountId,
      creditAccountId: account.accountId,
      amountMinor,
      customerAccountId: account.accountId,
      customerDeltaMinor: amountMinor,
      guardMinBalanceMinor: 0,
      guardMaxBalanceMinor: max - amountMinor,
    },
  };
}

/**
 * Withdrawal (withdrawBalance): the customer account is debited, the liability account credited.
 * Refused when the card cannot be used or the balance does not cover the amount; a withdrawal
 * never takes a balance below zero.
 */
export function planWithdrawal(input: {
  condition: CardCondition;
  account: CustomerAccount;
  liabilityAccountId: number;
  amountMinor: number;
}): PlanResult {
  const { condition, account, amountMinor } = input;
  if (amountMinor <= 0 || !Number.isSafeInteger(amountMinor)) return { ok: false, reason: 'invalid_amount' };
  if (condition !== 'usable' || !account.open) return { ok: false, reason: 'card_unusable' };
  if (account.balanceMinor < amountMinor) return { ok: false, reason: 'insufficient_balance' };
  return {
    ok: true,
    transfer: {
      kind: 'withdrawal',
      debitAccountId: account.accountId,
      creditAccountId: input.liabilityAccountId,
      amountMinor,
      customerAccountId: account.accountId,
      customerDeltaMinor: -amountMinor,
      guardMinBalanceMinor: amountMinor,
      guardMaxBalanceMinor: null,
    },
  };
}

/**
 * Linking an unlinked customer card to a profile moves the card's whole own balance to the
 * profile's account: one transfer from the card account to the profile account, or nothing when
 * the card holds nothing. maxAmount does not stop a merge: the money exists already and must not
 * be stranded on a card that no longer addresses its own account.
 */
export function planMerge(input: {
  cardAccountId: number;
  cardBalanceMinor: number;
  profileAccountId: number;
}): PlannedTransfer | null {
  if (input.cardBalanceMinor <= 0) return null;
  return {
    kind: 'merge',
    debitAccountId: input.cardAccountId,
    creditAccountId: input.profileAccountId,
    amountMinor: input.cardBalanceMinor,
    customerAccountId: input.profileAccountId,
    customerDeltaMinor: input.cardBalanceMinor,
    guardMinBalanceMinor: 0,
    guardMaxBalanceMinor: null,
  };
}

/** Dispose: a card's own balance must be zero (13005), so no money is stranded on a released id. */
export function checkDispose(input: {
  condition: CardCondition;
  ownBalanceMinor: number;
}): { ok: true } | Refusal {
  if (input.condition === 'locked' || input.condition === 'released') {
    return { ok: false, reason: 'card_unusable' };
  }
  if (input.ownBalanceMinor !== 0) return { ok: false, reason: 'balance_not_zero' };
  return { ok: true };
}
