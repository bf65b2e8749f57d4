import { postTransfer } from '../ledger/ledger.store.js';
import { planRefund } from '../ledger/rules/checkout-rules.js';
import { AppError } from '../shared/errors.js';
import { emitStatusChange } from './balance-events.js';
import {
  findTransactionOf,
  insertTransaction,
  liabilityAccount,
  newTransactionId,
  readProfileBalance,
  setTransactionStatus,
} from './balance.store.js';
import type { KeepAnswer } from './keyed-answer.js';
import type { CheckoutCaller, CheckoutDeps } from './order.service.js';
import { findOrder, markOrderRefunded } from './order.store.js';

export interface RefundAnswer {
  basketId: string;
  status: 'refunded';
  refundedAmount: number;
  currency: string;
  balance: { oldAmount: number; newAmount: number; currency: string } | null;
}

/**
 * Refund of an order: the charge is reversed by a `refund` transfer, the order and its charge
 * become `refunded`. A second refund books nothing and answers the same figures.
 */
export async function refundOrder(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  basketId: string,
  keep?: KeepAnswer,
): Promise<RefundAnswer> {
  const nowMs = deps.clock.nowMs();
  const head = await findOrder(deps.db, caller.merchantId, { basketId });
  if (!head) throw new AppError('orderNotFound');
  const liability = await liabilityAccount(deps, caller.merchantId, head.currency);
  const out = await deps.db.transaction().execute(async (trx) => {
    const order = await findOrder(trx, caller.merchantId, { basketId }, { forUpdate: true });
    if (!order) throw new AppError('orderNotFound');
    const p = await readProfileBalance(trx, caller.merchantId, order.profileId, { forUpdate: true });
    if (!p) throw new AppError('orderNotFound');
    const answer = (oldAmount: number, newAmount: number): RefundAnswer => ({
      basketId,
      status: 'refunded',
      refundedAmount: order.chargedMinor,
      currency: order.currency,
      balance: order.chargedMinor > 0 ? { oldAmount, newAmount, currency: order.currency } : null,
    });
    if (order.status === 'refunded') return { events: 0, body: answer(p.balanceMinor, p.balanceMinor) };
    let events = 0;
    let newAmount = p.balanceMinor;
    const base = {
      merchantId: caller.merchantId,
      currency: order.currency,
      profileReference: null,
      basketId,
    };
    if (order.chargedMinor > 0) {
      const posted = await postTransfer(
        trx,
        planRefund({
          accountId: p.accountId,
          liabilityAccountId: liability,
          amountMinor: order.chargedMinor,
        }),
        {
          merchantId: caller.merchantId,
          transactionId: `refund:${order.id}`,
          currency: order.currency,
          cardId: null,
          tokenId: null,
          trackingUnitId: null,
          nowMs,
          authorisation: { by: 'checkout', sha256: null },
          terminal: null,
        },
      );
      if (posted.status !== 'posted') throw new Error(`refund of ${order.id} not posted: ${posted.status}`);
      newAmount = posted.balanceAfterMinor;
      const id = newTransactionId();
      await insertTransaction(
        trx,
        {
          id,
          merchantId: caller.merchantId,
          profileId: order.profileId,
          kind: 'refund',
          status: 'completed',
          amountMinor: order.chargedMinor,
          currency: order.currency,
          orderId: order.id,
          reservationId: null,
        },
        nowMs,
      );
      events += await emitStatusChange(
        trx,
        {
          ...base,
          transactionId: id,
          kind: 'refund',
          status: 'completed',
          previousStatus: null,
          amountMinor: order.chargedMinor,
        },
        nowMs,
      );
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
    await markOrderRefunded(trx, order.id, nowMs);
    const body = answer(p.balanceMinor, newAmount);
    if (keep) await keep(trx, body);
    return { events, body };
  });
  if (out.events > 0) deps.afterCommit();
  return out.body;
}
