import { randomUUID } from 'node:crypto';
import { otpHash } from '../cards/profile.service.js';
import { newReceiptId, receiptUrl } from '../receipts/receipt.store.js';
import { AppError } from '../shared/errors.js';
import { liabilityAccount, newTransactionId } from './balance.store.js';
import { IDEMPOTENCY_TTL_MS, readKeyState } from './idempotency.store.js';
import { orderAnswer } from './order-answer.js';
import { type OrderPricing, priceOrder } from './order-pricing.js';
import type { StoredOrder } from './order.store.js';
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
 * any refusal found before the write (pricing, totalGross, times), an order given a campaign with a
 * budget (booked under the budget's lock), and a write that found the client, its time zone or the
 * menu changed since the app read them. So every refusal before the
 * write comes from that path, which reads everything afresh and answers exactly as before. An order
 * a campaign with a usage limit per customer or limited to tiers may reward is priced on its
 * customer's uses and tier measures, which the statement re-checks under the customer's lock:
 * changed since, or another order of the same customer before it in the batch, and it takes that
 * path too (docs/decisions.md, "Usage limits and
 * status tiers on online orders").
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
  const session = deps.menus.session();
  let read: ReturnType<typeof readHead>;
  let pricing: OrderPricing;
  try {
    read = readHead(caller, input);
    // A campaign limited per customer may reward it: priced on the uses of the customer the
    // reference names, which the statement checks again under the customer's lock (`book_orders`).
    const request = {
      ...pricingRequest(caller, input, read, nowMs),
      customerReference: { text: reference, otpSha256: otpHash(reference) },
    };
    pricing = await priceOrder(deps, request, session);
  } catch (err) {
    if (err instanceof AppError) return null;
    throw err;
  }
  const { priced } = pricing;
  const menu = session.facts();
  if (menu === null || (input.totalGross !== undefined && input.totalGross !== priced.totalGrossMinor)) {
    return null;
  }
  // Given a campaign with a budget: booked with the budget locked, by separate statements.
  if (pricing.budgets.length > 0) return null;
  const customer = pricing.customerProfileId;
  if (pricing.readsCustomer && (customer === null || pricing.seenUses === null)) return null;
  if (pricing.readsTiers && pricing.seenTiers === null) return null;
  const { head } = read;
  const charge = input.balance?.requestCharge === true;
  const orderId = `ord_${randomUUID().replace(/-/g, '')}`;
  const receiptId = newReceiptId();
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
    transactionId: newTransactionId(),
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
