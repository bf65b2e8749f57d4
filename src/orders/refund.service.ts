import { bookBalanceMovement } from './balance-booking.js';
import { giveBackOrderBudgets } from '../campaigns/campaign-budgets.store.js';
import { releaseOrderUsages } from './order-usage.store.js';
import { queueNotification } from '../notifications/purchase-notification.store.js';
import { planRefund } from '../ledger/rules/checkout-rules.js';
import { AppError } from '../shared/errors.js';
import { timeOrderedHex } from '../shared/random-id.js';
import { emitStatusChange } from './balance-events.js';
import {
  findTransactionOf,
  liabilityAccount,
  newTransactionId,
  readProfileBalance,
  setTransactionStatus,
} from './balance.store.js';
import type { KeepAnswer } from './keyed-answer.js';
import { type RefundOut, refundOut } from './order-read.js';
import {
  type OrderRecord,
  type RefundRecord,
  insertRefund,
  readOrderRecord,
  refundOfRequest,
  refundsOf,
  setOrderRefunded,
} from './order-read.store.js';
import type { CheckoutCaller, CheckoutDeps } from './order.service.js';
import { type RefundAsk, type RefundPlan, planOrderRefund, sameRefundAsk } from './refund-plan.js';

/** A refund asked for in the portal: who, why, and the request's own id. */
export interface PortalRefundAsk {
  readonly portalUserId: number;
  readonly reason: string | null;
  readonly requestId: string;
}

export interface RefundAnswer {
  basketId: string;
  status: 'refunded' | 'partially_refunded';
  /** Given back by all refunds of the order so far. */
  refundedAmount: number;
  refundableAmount: number;
  currency: string;
  balance: { oldAmount: number; newAmount: number; currency: string } | null;
  refund: RefundOut;
}

function refusal(plan: Exclude<RefundPlan, { ok: true }>): AppError {
  switch (plan.reason) {
    case 'amount_and_positions':
      return new AppError('refundAmountAndPositions');
    case 'quantity_not_thousandths':
      return new AppError('refused', 'A quantity has more than three decimals.', {
        details: { positionId: plan.positionId },
      });
    case 'position_unknown':
      return new AppError('refundPositionUnknown', undefined, { details: { positionId: plan.positionId } });
    case 'quantity_exceeds':
      return new AppError('refundQuantityExceeds', undefined, {
        details: { positionId: plan.positionId, remainingQuantity: plan.remainingQuantity },
      });
    case 'exceeds_refundable':
      return new AppError('refundExceedsRefundable', undefined, {
        details: { refundableAmount: plan.refundableAmount },
      });
  }
}

/** The refund `ask` of the order after its `earlier` refunds, planned by the one rule. */
function planFor(order: OrderRecord, earlier: readonly RefundRecord[], ask: RefundAsk): RefundPlan {
  return planOrderRefund({
    chargedMinor: order.status === 'refunded' ? order.refundedMinor : order.chargedMinor,
    refundedMinor: order.refundedMinor,
    positions: order.priced.priced.positions.map((x) => ({
      positionId: x.positionId,
      quantity: x.quantity,
      priceMinor: x.priceMinor,
    })),
    refunded: earlier.flatMap((r) => r.positions),
    ask,
  });
}

/**
 * Nothing left to give back (not charged, or refunded whole): an owner's refund, and its quote,
 * are refused and book nothing (the checkout interface's whole refund answers the last instead).
 */
function refuseWhenNothingLeft(order: OrderRecord): void {
  if (order.status === 'refunded' || order.chargedMinor === order.refundedMinor) {
    throw new AppError('refundExceedsRefundable', undefined, { details: { refundableAmount: 0 } });
  }
}

/** What a refund would give back now, booking nothing. */
export interface RefundQuote {
  readonly amountMinor: number;
  /** True when the order would then be refunded in whole. */
  readonly whole: boolean;
  readonly currency: string;
}

/**
 * What `ask` would give back if it were made now (docs/decisions.md, "Refunding an order from the
 * portal"): the refund's own plan over the order and its refunds as they stand, booked nowhere, so
 * that a person is asked with the amount the refund will move; refused as the refund would be.
 */
export async function quoteRefund(
  deps: Pick<CheckoutDeps, 'db'>,
  caller: Pick<CheckoutCaller, 'merchantId'>,
  basketId: string,
  ask: RefundAsk,
): Promise<RefundQuote> {
  const order = await readOrderRecord(deps.db, caller.merchantId, basketId);
  if (!order) throw new AppError('orderNotFound');
  refuseWhenNothingLeft(order);
  const earlier = (await refundsOf(deps.db, [order.id])).get(order.id) ?? [];
  const plan = planFor(order, earlier, ask);
  if (!plan.ok) throw refusal(plan);
  return { amountMinor: plan.amountMinor, whole: plan.whole, currency: order.currency };
}

/**
 * A refund of an order (docs/decisions.md, "Reading back, lists and partial refunds"): with no
 * amount and no positions it gives back everything still refundable and the order becomes
 * `refunded`, its charge too; a refund of an amount or of positions gives back that part, and the
 * order is `partially_refunded` until the refunds add up to the charge. Refunds of one order queue
 * on its row lock, so their sum never passes the charge. Refunding a refunded order in whole books
 * nothing and answers the same figures.
 */
export async function refundOrder(
  deps: CheckoutDeps,
  caller: Pick<CheckoutCaller, 'merchantId'>,
  basketId: string,
  ask: RefundAsk = {},
  keep?: KeepAnswer,
  portal?: PortalRefundAsk,
): Promise<RefundAnswer> {
  const nowMs = deps.clock.nowMs();
  const head = await readOrderRecord(deps.db, caller.merchantId, basketId);
  if (!head) throw new AppError('orderNotFound');
  const liability = await liabilityAccount(deps, caller.merchantId, head.currency);
  const out = await deps.db.transaction().execute(async (trx) => {
    const order = await readOrderRecord(trx, caller.merchantId, basketId, { forUpdate: true });
    if (!order) throw new AppError('orderNotFound');
    const p = await readProfileBalance(trx, caller.merchantId, order.profileId, { forUpdate: true });
    if (!p) throw new AppError('orderNotFound');
    const earlier = (await refundsOf(trx, [order.id])).get(order.id) ?? [];
    const answer = (refundedMinor: number, oldAmount: number, newAmount: number, refund: RefundRecord) => {
      const whole = order.status === 'refunded' || refundedMinor === order.chargedMinor;
      const body: RefundAnswer = {
        basketId,
        status: whole ? 'refunded' : 'partially_refunded',
        refundedAmount: refundedMinor,
        refundableAmount: whole ? 0 : order.chargedMinor - refundedMinor,
        currency: order.currency,
        balance: order.chargedMinor > 0 ? { oldAmount, newAmount, currency: order.currency } : null,
        refund: refundOut(refund),
      };
      return body;
    };
    if (portal) {
      // A portal request sent again (a retried submit, a second tab) answers its first refund; the
      // order's row lock orders it after that refund (docs/decisions.md, "Refunding an order from the portal").
      const first = await refundOfRequest(trx, caller.merchantId, portal.requestId);
      if (first) {
        if (
          first.orderId !== order.id ||
          !sameRefundAsk({ askedMinor: first.portal?.askedMinor ?? null, positions: first.positions }, ask)
        ) {
          throw new AppError('refundRequestReused');
        }
        return { events: 0, body: answer(order.refundedMinor, p.balanceMinor, p.balanceMinor, first) };
      }
      refuseWhenNothingLeft(order);
    }
    const wholeAsk = ask.amount === undefined && ask.positions === undefined;
    const last = earlier[earlier.length - 1];
    if (order.status === 'refunded' && wholeAsk && last) {
      return { events: 0, body: answer(order.refundedMinor, p.balanceMinor, p.balanceMinor, last) };
    }
    const plan = planFor(order, earlier, ask);
    if (!plan.ok) throw refusal(plan);
    const refundId = `ref_${timeOrderedHex(nowMs)}`;
    // The first refund of an order keeps the ledger key a whole refund always had.
    const ledgerKey = earlier.length === 0 ? `refund:${order.id}` : `refund:${order.id}:${refundId}`;
    const refundedMinor = order.refundedMinor + plan.amountMinor;
    const base = {
      merchantId: caller.merchantId,
      currency: order.currency,
      profileReference: null,
      basketId,
    };
    let events = 0;
    let newAmount = p.balanceMinor;
    let transactionId: string | null = null;
    if (plan.amountMinor > 0) {
      transactionId = newTransactionId(nowMs);
      const booked = await bookBalanceMovement(
        trx,
        {
          plan: planRefund({
            accountId: p.accountId,
            liabilityAccountId: liability,
            amountMinor: plan.amountMinor,
          }),
          ledgerKey,
          transaction: {
            id: transactionId,
            merchantId: caller.merchantId,
            profileId: order.profileId,
            kind: 'refund',
            status: 'completed',
            amountMinor: plan.amountMinor,
            currency: order.currency,
            orderId: order.id,
            reservationId: null,
          },
          event: {
            profileReference: base.profileReference,
            basketId: base.basketId,
            refundableMinor: plan.whole ? 0 : order.chargedMinor - refundedMinor,
          },
        },
        nowMs,
      );
      if (booked.posted.status !== 'posted') {
        throw new Error(`refund of ${order.id} not posted: ${booked.posted.status}`);
      }
      newAmount = booked.posted.balanceAfterMinor;
      events += booked.events;
      if (order.receiptId !== null) {
        // The consumer hears of the money back as of the order (docs/decisions.md, "The purchase
        // mail of an order paid from the balance").
        const note = { receiptId: order.receiptId, profileId: order.profileId, event: 'refund' } as const;
        await queueNotification(trx, caller.merchantId, note, nowMs);
        events += 1;
      }
    }
    // Refunded in whole, the order gives back what it booked of its campaigns' budgets and
    // releases its uses of campaigns with a usage limit per customer.
    if (plan.whole) {
      await giveBackOrderBudgets(trx, { merchantId: caller.merchantId, orderId: order.id }, nowMs);
      await releaseOrderUsages(trx, { merchantId: caller.merchantId, orderId: order.id }, nowMs);
    }
    if (plan.whole && order.chargedMinor > 0) {
      const chargeId = await findTransactionOf(trx, { orderId: order.id }, 'charge');
      const moved = chargeId === null ? null : await setTransactionStatus(trx, chargeId, 'refunded', nowMs);
      if (moved) {
        events += await emitStatusChange(
          trx,
          {
            ...base,
            transactionId: moved.id,
            kind: 'charge',
            status: 'refunded',
            previousStatus: moved.previousStatus,
            amountMinor: moved.amountMinor,
          },
          nowMs,
        );
      }
    }
    const refund: RefundRecord = {
      id: refundId,
      orderId: order.id,
      seq: earlier.length + 1,
      amountMinor: plan.amountMinor,
      positions: plan.positions,
      transactionId,
      createdAt: new Date(nowMs),
      portal: portal ? { ...portal, askedMinor: ask.amount ?? null } : null,
    };
    // Taken meanwhile by a refund of another order: nothing of this one is kept.
    if (!(await insertRefund(trx, caller.merchantId, refund))) throw new AppError('refundRequestReused');
    await setOrderRefunded(trx, order.id, refundedMinor, plan.whole, nowMs);
    const body = answer(refundedMinor, p.balanceMinor, newAmount, refund);
    if (keep) await keep(trx, body);
    return { events, body };
  });
  if (out.events > 0) deps.afterCommit();
  return out.body;
}
