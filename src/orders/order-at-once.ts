import { otpHash } from '../cards/profile.service.js';
import { newReceiptId, receiptUrl } from '../receipts/receipt.store.js';
import { AppError } from '../shared/errors.js';
import { liabilityAccount, newTransactionId } from './balance.store.js';
import { IDEMPOTENCY_TTL_MS, readKeyState } from './idempotency.store.js';
import { orderAnswer } from './order-answer.js';
import { type OrderPricing, priceOrder } from './order-pricing.js';
import { type StoredOrder, newOrderId } from './order.store.js';
import type { MenuFacts } from './order-model.js';
import {
  type CheckoutCaller,
  type CheckoutDeps,
  type OrderInput,
  chargedReservation,
  pricingRequest,
  readHead,
} from './order.service.js';

/** An order's answer: its status and text as sent, and whether it is a stored answer replayed. */
export interface OrderResult {
  readonly status: number;
  readonly body: string;
  readonly replayed: boolean;
}

/**
 * POST /orders in one statement (`place_order`, sql/place_order.sql; docs/decisions.md, "Checkout v1:
 * orders in one statement"): priced here from the app's menus, then written by the order writer
 * with the Idempotency-Key, the profile, the charge, the receipt, the webhook messages and the
 * stored answer, in a batch with the orders of other requests (group commit). Null when the order
 * takes the path of separate statements (`placeOrder`) instead: an order without profileReference,
 * any refusal found before the write (pricing, totalGross, times), and a write that found the
 * client, its time zone or the menu changed since the app read them. So every refusal before the
 * write comes from that path, which reads everything afresh and answers exactly as before. An order
 * a campaign with a usage limit per customer or limited to tiers may reward is priced on its
 * customer's uses and tier measures, which the statement re-checks under the customer's lock:
 * changed since, or another order of the same customer before it in the batch, and it takes that
 * path too (docs/decisions.md, "Usage limits and status tiers on online orders"). An order given a
 * campaign with a budget books its share of it only while it still fits what is left under the
 * budget's lock, the orders before it in the batch counted; else, or when a campaign with a budget
 * was left out of its pricing, it takes that path ("A campaign with a budget and online orders").
 */
export async function placeOrderAtOnce(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  input: OrderInput,
  signed: { readonly idempotencyKey: string; readonly bodySha256: string },
  requestId: string,
): Promise<OrderResult | null> {
  const reference = input.profileReference;
  if (reference === undefined) return null;
  const nowMs = deps.clock.nowMs();
  let at = await priceAtOnce(deps, caller, input, reference, nowMs);
  // Refused as priced from a remembered menu: the menu, its prices or the campaigns may have changed
  // since (an app sends the total its quote, priced afresh, showed). Priced once more from the menu
  // read again, so that the orders after a change keep this way; refused again, the separate
  // statements answer the refusal.
  if (at.refused && at.remembered) {
    deps.menus.forget(caller.merchantId, input.menuId);
    at = await priceAtOnce(deps, caller, input, reference, nowMs);
  }
  if (at.refused) return null;
  const { read, pricing, menu } = at;
  const { priced } = pricing;
  // Given a campaign with a budget: booked while its rewards still fit what is left under the
  // budget's lock (`book_orders`). One whose campaigns with a budget were partly left out takes the
  // separate statements, which fit them again under the lock.
  if (pricing.budgets.length > 0 && pricing.budgetsHeldBack) return null;
  const customer = pricing.customerProfileId;
  if (pricing.readsCustomer && (customer === null || pricing.seenUses === null)) return null;
  if (pricing.readsTiers && pricing.seenTiers === null) return null;
  const { head } = read;
  const charge = input.balance?.requestCharge === true;
  const orderId = newOrderId(nowMs);
  const receiptId = newReceiptId(nowMs);
  const answer = JSON.stringify(
    orderAnswer(head, priced, { receiptUrl: receiptUrl(deps.publicBaseUrl, receiptId) }),
  );
  const outcome = await deps.orders.place({
    clientId: caller.clientId,
    merchantId: caller.merchantId,
    timeZone: caller.timeZone,
    menu,
    idempotencyKey: signed.idempotencyKey,
    requestSha256: signed.bodySha256,
    requestId,
    nowMs,
    keyTtlMs: IDEMPOTENCY_TTL_MS,
    profileReference: reference,
    otpSha256: otpHash(reference),
    orderId,
    basketId: input.basketId,
    receiptId,
    currency: head.currency,
    totalGrossMinor: priced.totalGrossMinor,
    charge,
    pricedJson: JSON.stringify({ head, priced } satisfies StoredOrder),
    liabilityAccountId: charge ? await liabilityAccount(deps, caller.merchantId, head.currency) : null,
    transactionId: newTransactionId(nowMs),
    reservation: chargedReservation(input),
    // The statement adds the balance movement and the status after `vats` (orderAnswer's order).
    answerHead: answer.slice(0, -1),
    customerUses:
      customer === null || pricing.seenUses === null
        ? null
        : {
            profileId: customer,
            seen: pricing.seenUses,
            book: pricing.usages,
            tiers: pricing.seenTiers,
          },
    budgets: pricing.budgets.length === 0 ? null : pricing.budgets,
  });
  switch (outcome.outcome) {
    case 'placed':
      if (outcome.events > 0) deps.afterCommit();
      return { status: outcome.status, body: outcome.body, replayed: false };
    case 'refused':
      // The catalog's text naming this request, as the statement stored it under the key.
      return { status: outcome.status, body: outcome.body, replayed: false };
    case 'replay':
      return { status: outcome.status, body: outcome.body, replayed: true };
    case 'in_flight':
      return keyInFlight(deps, caller, signed, nowMs);
    case 'reused':
      throw new AppError('idempotencyKeyReused');
    case 'stale':
      deps.menus.forget(caller.merchantId, input.menuId);
      return null;
  }
}

/**
 * The order priced for the one-statement way, from the app's remembered menus, or refused: a refusal
 * of the pricing, no menu, or a totalGross other than the priced total (the separate statements
 * answer those). `remembered`: priced from an entry whose facts were not read again.
 */
async function priceAtOnce(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  input: OrderInput,
  reference: string,
  nowMs: number,
): Promise<
  | { readonly refused: true; readonly remembered: boolean }
  | {
      readonly refused: false;
      readonly read: ReturnType<typeof readHead>;
      readonly pricing: OrderPricing;
      readonly menu: MenuFacts;
    }
> {
  const session = deps.menus.session();
  try {
    const read = readHead(caller, input);
    // A campaign limited per customer may reward it: priced on the uses of the customer the
    // reference names, which the statement checks again under the customer's lock (`book_orders`).
    const request = {
      ...pricingRequest(caller, input, read, nowMs),
      customerReference: { text: reference, otpSha256: otpHash(reference) },
    };
    const pricing = await priceOrder(deps, request, session);
    const menu = session.facts();
    if (
      menu === null ||
      (input.totalGross !== undefined && input.totalGross !== pricing.priced.totalGrossMinor)
    ) {
      return { refused: true, remembered: session.remembered() };
    }
    return { refused: false, read, pricing, menu };
  } catch (err) {
    if (err instanceof AppError) return { refused: true, remembered: session.remembered() };
    throw err;
  }
}

/**
 * The statement found the key in flight. Held under a claim past its lease (a request of the path
 * of separate statements that never finished): null, and that path takes the key over
 * (`beginIdempotent`) as for every other keyed write. Answered meanwhile: its answer. Held by a
 * request still running, or by a transaction not yet visible: 409 at once, as the contract says.
 */
async function keyInFlight(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  signed: { readonly idempotencyKey: string; readonly bodySha256: string },
  nowMs: number,
): Promise<OrderResult | null> {
  const key = await readKeyState(deps.db, caller.clientId, signed.idempotencyKey, signed.bodySha256, nowMs);
  switch (key.state) {
    case 'lapsed':
      return null;
    case 'done':
      return { status: key.status, body: key.body, replayed: true };
    case 'gone':
    case 'in_flight':
      throw new AppError('idempotencyKeyInFlight');
  }
}
