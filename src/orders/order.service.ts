import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { RuleSetCache } from '../campaigns/live-rules.store.js';
import type { CheckoutClient } from '../merchants/checkout-client.store.js';
import { postTransfer } from '../ledger/ledger.store.js';
import { planCharge } from '../ledger/rules/checkout-rules.js';
import { queueNotification } from '../notifications/purchase-notification.js';
import { createReceipt, receiptUrl } from '../receipts/receipt.store.js';
import type { BoundedCache } from '../shared/bounded-cache.js';
import type { Clock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import { type Instant, parseInstant } from '../shared/time.js';
import type { DB } from '../store/schema.js';
import { emitStatusChange } from './balance-events.js';
import {
  type ProfileBalance,
  findTransactionOf,
  insertTransaction,
  liabilityAccount,
  liveReservedMinor,
  newTransactionId,
  readProfileBalance,
  resolveProfileReference,
  setTransactionStatus,
  spendOtp,
} from './balance.store.js';
import { finishIdempotent } from './idempotency.store.js';
import type { MenuCache } from './menu-cache.js';
import { type AnswerHead, type BalanceOut, type OrderAnswer, orderAnswer } from './order-answer.js';
import type { PricedOrder } from './order-model.js';
import { type PricingRequest, priceOrder } from './order-pricing.js';
import { findReservation, insertOrder, updateReservation } from './order.store.js';
import type { OrderWriter } from './order-write.store.js';

/** What the checkout use cases need: built once per app (src/services.ts). */
export interface CheckoutDeps {
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly ruleSets: RuleSetCache;
  readonly publicBaseUrl: string;
  /** The merchants' liability accounts by "merchantId currency": they never change once made. */
  readonly liabilityAccounts: Map<string, number>;
  /** Called after a transaction that wrote to the outbox has committed (the dispatcher's nudge). */
  readonly afterCommit: () => void;
  /** Checkout clients by access token, remembered a few seconds for the order route (checkout-auth.ts). */
  readonly clients: BoundedCache<string, CheckoutClient>;
  /** The menus orders are priced from; the order's write re-checks what pricing relied on. */
  readonly menus: MenuCache;
  /** Orders in one statement each, written in batches (group commit). */
  readonly orders: OrderWriter;
}

/** The authenticated checkout client. */
export interface CheckoutCaller {
  readonly clientId: number;
  readonly merchantId: number;
  readonly timeZone: string;
  /** True when the client was remembered, not looked up for this request: the write re-checks it. */
  readonly remembered?: boolean;
}

export interface OrderInput {
  startTimestamp?: string;
  endTimestamp?: string;
  orderTimestamp: string;
  basketId: string;
  profileReference?: string;
  menuId: number;
  checkInIds?: number[];
  positions: { positionId: number; productPlu: string; quantity: number }[];
  consumptionMode: string | number;
  totalGross?: number;
  currency: string;
  balance?: {
    requestCharge: boolean;
    reservation?: { reference: string; cancelRemainingAmount?: boolean };
  };
}

/** consumptionMode: `OnPremise` or 0, `Takeaway` or 1 (case-insensitive). */
export function parseConsumptionMode(v: string | number): 0 | 1 {
  const t = String(v).trim().toLowerCase();
  if (t === '0' || t === 'onpremise') return 0;
  if (t === '1' || t === 'takeaway') return 1;
  throw new AppError('refused', 'consumptionMode must be OnPremise, Takeaway, 0 or 1.');
}

function instant(text: string | undefined, field: string, timeZone: string): Instant | undefined {
  if (text === undefined) return undefined;
  const i = parseInstant(text, timeZone);
  if (!i) throw new AppError('refused', `${field} must be an ISO 8601 date-time.`);
  return i;
}

const utc = (i: Instant | undefined) => (i === undefined ? undefined : new Date(i.utcMs).toISOString());

interface Prepared {
  head: AnswerHead;
  priced: PricedOrder;
  profile: { profileId: number; otpSha256: string | null } | null;
}

/** What an order says before anything is looked up: the answer's head and the time of the order. */
export function readHead(
  caller: CheckoutCaller,
  input: OrderInput,
): { head: AnswerHead; orderTime: Instant } {
  const mode = parseConsumptionMode(input.consumptionMode);
  const orderTime = instant(input.orderTimestamp, 'orderTimestamp', caller.timeZone) as Instant;
  const start = instant(input.startTimestamp, 'startTimestamp', caller.timeZone);
  const end = instant(input.endTimestamp, 'endTimestamp', caller.timeZone);
  const head: AnswerHead = {
    ...(start ? { startTimestamp: utc(start) } : {}),
    ...(end ? { endTimestamp: utc(end) } : {}),
    orderTimestamp: utc(orderTime) as string,
    basketId: input.basketId,
    ...(input.profileReference !== undefined ? { profileReference: input.profileReference } : {}),
    menuId: input.menuId,
    ...(input.checkInIds !== undefined ? { checkInIds: input.checkInIds } : {}),
    consumptionMode: mode,
    currency: input.currency.trim().toUpperCase(),
  };
  return { head, orderTime };
}

export function pricingRequest(
  caller: CheckoutCaller,
  input: OrderInput,
  { head, orderTime }: { head: AnswerHead; orderTime: Instant },
): PricingRequest {
  return {
    merchantId: caller.merchantId,
    currency: head.currency,
    menuId: input.menuId,
    consumptionMode: head.consumptionMode,
    orderTime,
    consumerKnown: input.profileReference !== undefined,
    positions: input.positions,
  };
}

async function prepare(deps: CheckoutDeps, caller: CheckoutCaller, input: OrderInput): Promise<Prepared> {
  const nowMs = deps.clock.nowMs();
  const read = readHead(caller, input);
  let profile: Prepared['profile'] = null;
  if (input.profileReference !== undefined) {
    profile = await resolveProfileReference(deps.db, caller.merchantId, input.profileReference, nowMs);
    if (!profile) throw new AppError('profileReferenceUnusable');
  }
  const priced = await priceOrder(deps, pricingRequest(caller, input, read));
  checkTotal(input, priced);
  return { head: read.head, priced, profile };
}

function checkTotal(input: OrderInput, priced: PricedOrder): void {
  if (input.totalGross !== undefined && input.totalGross !== priced.totalGrossMinor) {
    throw new AppError('totalMismatch', `Expected ${priced.totalGrossMinor}.`, {
      details: { expectedTotalGross: priced.totalGrossMinor, totalGross: input.totalGross },
    });
  }
}

/** POST /baskets: prices the basket, books nothing. */
export async function quoteBasket(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  input: OrderInput,
): Promise<OrderAnswer> {
  const { head, priced } = await prepare(deps, caller, input);
  return orderAnswer(head, priced);
}

/**
 * POST /orders: prices, checks totalGross, and in one transaction stores the order, spends the
 * one-time password it used, charges the balance (reservation first), inserts the receipt, writes
 * the status events and the idempotent answer. Any refusal books nothing.
 */
export async function placeOrder(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  input: OrderInput,
  idempotencyKey: string | null,
): Promise<string> {
  const nowMs = deps.clock.nowMs();
  const { head, priced, profile } = await prepare(deps, caller, input);
  if (!profile) throw new AppError('refused', 'profileReference is required for an order.');
  const charge = input.balance?.requestCharge === true;
  const liability = charge ? await liabilityAccount(deps, caller.merchantId, head.currency) : 0;
  const orderId = `ord_${randomUUID().replace(/-/g, '')}`;
  let events = 0;
  const text = await deps.db.transaction().execute(async (trx) => {
    // The profile's lock comes first: every balance change of one profile takes it before
    // anything else, so concurrent orders queue instead of deadlocking.
    const locked = charge
      ? await readProfileBalance(trx, caller.merchantId, profile.profileId, { forUpdate: true })
      : null;
    const receiptId = await createReceipt(trx, {
      merchantId: caller.merchantId,
      kind: 'checkout_order',
      sourceRef: orderId,
      createdAt: new Date(nowMs),
    });
    const inserted = await insertOrder(trx, {
      id: orderId,
      merchantId: caller.merchantId,
      clientId: caller.clientId,
      basketId: input.basketId,
      profileId: profile.profileId,
      status: 'completed',
      currency: head.currency,
      totalGrossMinor: priced.totalGrossMinor,
      chargedMinor: charge ? priced.totalGrossMinor : 0,
      receiptId,
      priced: { head, priced },
      createdAt: new Date(nowMs),
    });
    if (!inserted) throw new AppError('orderExists');
    if (profile.otpSha256 !== null && !(await spendOtp(trx, caller.merchantId, profile.otpSha256, nowMs))) {
      throw new AppError('profileReferenceUnusable');
    }
    let balance: BalanceOut | undefined;
    if (charge) {
      if (!locked) throw new AppError('profileReferenceUnusable');
      const r = await chargeBalance(trx, locked, caller, input, head, priced.totalGrossMinor, {
        orderId,
        profileId: profile.profileId,
        liabilityAccountId: liability,
        nowMs,
      });
      balance = r.balance;
      events += r.events;
      if (priced.totalGrossMinor > 0) {
        // The consumer's purchase mail, as place_order queues it (docs/decisions.md, "The purchase
        // mail of an order paid from the balance").
        const note = { receiptId, profileId: profile.profileId, event: 'order' } as const;
        await queueNotification(trx, caller.merchantId, note, nowMs);
        events += 1;
      }
    }
    const answer = orderAnswer(head, priced, {
      receiptUrl: receiptUrl(deps.publicBaseUrl, receiptId),
      ...(balance ? { balance } : {}),
      status: 'completed',
    });
    const body = JSON.stringify(answer);
    if (idempotencyKey !== null) await finishIdempotent(trx, caller.clientId, idempotencyKey, 200, body);
    return body;
  });
  if (events > 0) deps.afterCommit();
  return text;
}

async function chargeBalance(
  trx: Transaction<DB>,
  profile: ProfileBalance,
  caller: CheckoutCaller,
  input: OrderInput,
  head: AnswerHead,
  amountMinor: number,
  at: { orderId: string; profileId: number; liabilityAccountId: number; nowMs: number },
): Promise<{ balance: BalanceOut; events: number }> {
  const { nowMs } = at;
  if (!profile.limits.isChargeAllowed) throw new AppError('chargeNotAllowed');
  if (profile.currency !== head.currency) throw new AppError('currencyMismatch');
  const wanted = input.balance?.reservation;
  const reservation = wanted
    ? await findReservation(trx, caller.merchantId, wanted.reference, { forUpdate: true })
    : null;
  if (
    wanted &&
    (!reservation ||
      reservation.profileId !== at.profileId ||
      reservation.status === 'cancelled' ||
      reservation.expiresAt.getTime() <= nowMs)
  ) {
    throw new AppError('reservationNotUsable');
  }
  const reservedLive = await liveReservedMinor(trx, at.profileId, nowMs);
  const cancel = wanted?.cancelRemainingAmount === true;
  const plan = planCharge({
    amountMinor,
    accountId: profile.accountId,
    liabilityAccountId: at.liabilityAccountId,
    balanceMinor: profile.balanceMinor,
    reservedLiveMinor: reservedLive,
    reservation: reservation ? { remainingMinor: reservation.remainingMinor } : null,
    cancelRemainingAmount: cancel,
  });
  if (!plan.ok) throw new AppError('checkoutInsufficientBalance');
  let newBalance = profile.balanceMinor;
  let events = 0;
  const change = {
    merchantId: caller.merchantId,
    currency: head.currency,
    profileReference: input.profileReference ?? null,
    basketId: input.basketId,
  };
  if (amountMinor > 0) {
    const posted = await postTransfer(trx, plan.transfer, {
      merchantId: caller.merchantId,
      transactionId: `charge:${at.orderId}`,
      currency: head.currency,
      cardId: null,
      tokenId: null,
      trackingUnitId: null,
      nowMs,
      authorisation: { by: 'checkout', sha256: null },
      terminal: null,
    });
    if (posted.status !== 'posted') throw new AppError('checkoutInsufficientBalance');
    newBalance = posted.balanceAfterMinor;
    const id = newTransactionId();
    await insertTransaction(
      trx,
      {
        id,
        merchantId: caller.merchantId,
        profileId: at.profileId,
        kind: 'charge',
        status: 'completed',
        amountMinor,
        currency: head.currency,
        orderId: at.orderId,
        reservationId: reservation?.id ?? null,
      },
      nowMs,
    );
    events += await emitStatusChange(
      trx,
      {
        ...change,
        transactionId: id,
        kind: 'charge',
        status: 'completed',
        previousStatus: null,
        amountMinor,
      },
      nowMs,
    );
  }
  const balance: BalanceOut = {
    oldAmount: profile.balanceMinor,
    newAmount: newBalance,
    currency: head.currency,
  };
  if (reservation) {
    const remaining = plan.reservedRemainingMinor;
    const status = remaining === 0 ? 'used' : 'active';
    await updateReservation(trx, reservation.id, { remainingMinor: remaining, status }, nowMs);
    if (status !== reservation.status) {
      const txId = await findTransactionOf(trx, { reservationId: reservation.id }, 'reservation');
      const moved = txId === null ? null : await setTransactionStatus(trx, txId, status, nowMs);
      if (moved) {
        events += await emitStatusChange(
          trx,
          {
            ...change,
            transactionId: moved.id,
            kind: 'reservation',
            status,
            previousStatus: moved.previousStatus,
            amountMinor: moved.amountMinor,
          },
          nowMs,
        );
      }
    }
    // Holds after the charge: the others, and what this reservation still holds.
    const reservedAfter = reservedLive - reservation.remainingMinor + remaining;
    balance.reservation = {
      oldAmountExcludingReservation: profile.balanceMinor - reservedLive,
      newAmountExcludingReservation: newBalance - reservedAfter,
      reservedAmountRemaining: remaining,
      reservedAmountUsed: plan.reservedUsedMinor,
      unreservedAmountUsed: plan.unreservedUsedMinor,
    };
  }
  return { balance, events };
}
