import type { Kysely } from 'kysely';
import { bookOrderBudgets, lockCampaignBudgets } from '../campaigns/campaign-budgets.store.js';
import type { RuleSetCache } from '../campaigns/live-rules.store.js';
import type { CheckoutClient } from '../merchants/checkout-client.store.js';
import { newReceiptId, receiptUrl } from '../receipts/receipt.store.js';
import type { BoundedCache } from '../shared/bounded-cache.js';
import type { Clock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import { type Instant, parseInstant } from '../shared/time.js';
import type { DB } from '../store/schema.js';
import {
  liabilityAccount,
  newTransactionId,
  readProfileBalance,
  resolveProfileReference,
} from './balance.store.js';
import { finishIdempotent } from './idempotency.store.js';
import type { MenuCache } from './menu-cache.js';
import { type AnswerHead, type OrderAnswer, orderAnswer } from './order-answer.js';
import { type OrderBookingFacts, type PricedOrder, orderRefusal } from './order-model.js';
import { type OrderPricing, type PricingRequest, priceOrder } from './order-pricing.js';
import { orderInstant } from './order-campaigns.js';
import { bookOrder, newOrderId } from './order.store.js';
import { bookOrderUsages } from './order-usage.store.js';
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
  pricing: OrderPricing;
  profile: { profileId: number; otpSha256: string | null } | null;
}

/** What an order says before anything is looked up: the answer's head and the time of the order. */
export function readHead(
  caller: CheckoutCaller,
  input: OrderInput,
): { head: AnswerHead; orderTime: Instant } {
  const mode = parseConsumptionMode(input.consumptionMode);
  const sent = instant(input.orderTimestamp, 'orderTimestamp', caller.timeZone) as Instant;
  const orderTime = orderInstant(sent.utcMs, caller.timeZone);
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

/** `customer`: the order's profile when resolved before pricing (the separate statements). */
export function pricingRequest(
  caller: CheckoutCaller,
  input: OrderInput,
  { head, orderTime }: { head: AnswerHead; orderTime: Instant },
  nowMs: number,
  customer: { readonly profileId: number } | null = null,
): PricingRequest {
  return {
    merchantId: caller.merchantId,
    currency: head.currency,
    menuId: input.menuId,
    consumptionMode: head.consumptionMode,
    orderTime,
    consumerKnown: input.profileReference !== undefined,
    customer,
    timeZone: caller.timeZone,
    nowMs,
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
  const customer = profile === null ? null : { profileId: profile.profileId };
  const pricing = await priceOrder(deps, pricingRequest(caller, input, read, nowMs, customer));
  checkTotal(input, pricing.priced);
  return { head: read.head, pricing, profile };
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
  const { head, pricing } = await prepare(deps, caller, input);
  return orderAnswer(head, pricing.priced);
}

/** The reservation an order is charged against: only an order that asks for a charge has one. */
export function chargedReservation(input: OrderInput): OrderBookingFacts['reservation'] {
  const r = input.balance?.requestCharge === true ? input.balance.reservation : undefined;
  return r ? { reference: r.reference, cancelRemainingAmount: r.cancelRemainingAmount === true } : null;
}

/**
 * POST /orders in separate statements: prices afresh, checks totalGross, and in one transaction
 * books the order by the order statements' own booking (`book_order`, sql/book_orders.sql: the
 * order, the spent one-time password, the charge, reservation first, the receipt, the status
 * events) and writes the idempotent answer. An order given a campaign with a budget is priced
 * again on what is left of the budget under its lock and books its share of it (docs/decisions.md,
 * "A campaign with a budget and online orders"); one priced on its customer's uses and tiers, again
 * on them under the customer's lock, and books its uses ("Usage limits and status tiers on online
 * orders"). Any refusal books nothing.
 */
export async function placeOrder(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  input: OrderInput,
  /** The Idempotency-Key and the request's claim on it, under which the answer is kept. */
  claimed: { readonly key: string; readonly claim: string } | null,
): Promise<string> {
  const nowMs = deps.clock.nowMs();
  const { head, pricing, profile } = await prepare(deps, caller, input);
  if (!profile || input.profileReference === undefined) {
    throw new AppError('refused', 'profileReference is required for an order.');
  }
  const charge = input.balance?.requestCharge === true;
  const liability = charge ? await liabilityAccount(deps, caller.merchantId, head.currency) : null;
  const orderId = newOrderId(nowMs);
  const receiptId = newReceiptId(nowMs);
  const booked = await deps.db.transaction().execute(async (trx) => {
    // The budgets it books of, locked until the order commits, and the customer's uses and tiers,
    // read under the customer's lock, and the order priced on them. The customer's profile is
    // locked first, as a grant of the same customer locks it before the budgets: the two wait for
    // each other instead of deadlocking.
    let final: Omit<OrderPricing, 'again'> = pricing;
    if (pricing.budgets.length > 0 || pricing.readsCustomer) {
      await readProfileBalance(trx, caller.merchantId, profile.profileId, { forUpdate: true });
      final = await pricing.again(trx, (ids) => lockCampaignBudgets(trx, caller.merchantId, ids, nowMs));
      checkTotal(input, final.priced);
    }
    const { priced } = final;
    const answerHead = JSON.stringify(
      orderAnswer(head, priced, { receiptUrl: receiptUrl(deps.publicBaseUrl, receiptId) }),
    ).slice(0, -1);
    const b = await bookOrder(trx, {
      merchantId: caller.merchantId,
      clientId: caller.clientId,
      nowMs,
      profileId: profile.profileId,
      otpSha256: profile.otpSha256,
      profileReference: input.profileReference as string,
      orderId,
      basketId: input.basketId,
      receiptId,
      currency: head.currency,
      totalGrossMinor: priced.totalGrossMinor,
      charge,
      priced: { head, priced },
      liabilityAccountId: liability,
      transactionId: newTransactionId(nowMs),
      reservation: chargedReservation(input),
      answerHead,
    });
    if (b.refusal !== null) throw new AppError(orderRefusal(b.refusal));
    await bookOrderBudgets(trx, { merchantId: caller.merchantId, orderId }, final.budgets, nowMs);
    const ref = { merchantId: caller.merchantId, orderId, profileId: profile.profileId };
    await bookOrderUsages(trx, ref, final.usages, nowMs);
    if (claimed !== null)
      await finishIdempotent(trx, caller.clientId, claimed.key, claimed.claim, 200, b.answer);
    return b;
  });
  if (booked.events > 0) deps.afterCommit();
  return booked.answer;
}
