import { AppError } from '../shared/errors.js';
import { timeOrderedUuid } from '../shared/random-id.js';
import { emitStatusChange } from './balance-events.js';
import {
  findTransactionOf,
  insertTransaction,
  liveReservedMinor,
  newTransactionId,
  readProfileBalance,
  setTransactionStatus,
} from './balance.store.js';
import { profileOf } from './balance.service.js';
import type { KeepAnswer } from './keyed-answer.js';
import type { CheckoutCaller, CheckoutDeps } from './order.service.js';
import { type ReservationRow, findReservation, insertReservation, updateReservation } from './order.store.js';

/**
 * Reservations of checkout v1: holds on a profile's balance. Expiry is decided at read time from
 * expires_at, so no job has to run for a balance or a reservation to read right.
 */

export const RESERVATION_DEFAULT_SECONDS = 900;

export interface ReservationAnswer {
  reference: string;
  amount: number;
  remainingAmount: number;
  currency: string;
  status: 'active' | 'used' | 'cancelled' | 'expired';
  expiresAt: string;
}

/** The status a reservation shows: `expired` follows from expires_at at read time, never stored. */
function reservationAnswer(r: ReservationRow, nowMs: number): ReservationAnswer {
  const expired = r.status === 'active' && r.expiresAt.getTime() <= nowMs;
  return {
    reference: r.id,
    amount: r.amountMinor,
    remainingAmount: expired || r.status !== 'active' ? 0 : r.remainingMinor,
    currency: r.currency,
    status: expired ? 'expired' : r.status,
    expiresAt: r.expiresAt.toISOString(),
  };
}

export async function createReservation(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  reference: string,
  input: { amount: number; currency: string; expiresInSeconds?: number },
  keep?: KeepAnswer,
): Promise<ReservationAnswer> {
  const nowMs = deps.clock.nowMs();
  const profileId = await profileOf(deps, caller, reference);
  const currency = input.currency.trim().toUpperCase();
  const seconds = input.expiresInSeconds ?? RESERVATION_DEFAULT_SECONDS;
  const out = await deps.db.transaction().execute(async (trx) => {
    const p = await readProfileBalance(trx, caller.merchantId, profileId, { forUpdate: true });
    if (!p) throw new AppError('profileNotFound');
    if (p.currency !== currency) throw new AppError('currencyMismatch');
    if (!p.limits.isChargeAllowed) throw new AppError('chargeNotAllowed');
    const reserved = await liveReservedMinor(trx, profileId, nowMs);
    if (input.amount > p.balanceMinor - reserved) throw new AppError('checkoutInsufficientBalance');
    const row: ReservationRow = {
      id: timeOrderedUuid(nowMs),
      merchantId: caller.merchantId,
      profileId,
      currency,
      amountMinor: input.amount,
      remainingMinor: input.amount,
      status: 'active',
      expiresAt: new Date(nowMs + seconds * 1000),
    };
    await insertReservation(trx, row, nowMs);
    const id = newTransactionId(nowMs);
    await insertTransaction(
      trx,
      {
        id,
        merchantId: caller.merchantId,
        profileId,
        kind: 'reservation',
        status: 'active',
        amountMinor: input.amount,
        currency,
        orderId: null,
        reservationId: row.id,
      },
      nowMs,
    );
    const events = await emitStatusChange(
      trx,
      {
        merchantId: caller.merchantId,
        transactionId: id,
        kind: 'reservation',
        status: 'active',
        previousStatus: null,
        amountMinor: input.amount,
        currency,
        profileReference: reference,
        basketId: null,
      },
      nowMs,
    );
    const body = reservationAnswer(row, nowMs);
    if (keep) await keep(trx, body);
    return { events, body };
  });
  if (out.events > 0) deps.afterCommit();
  return out.body;
}

export async function readReservation(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  reference: string,
): Promise<ReservationAnswer> {
  const r = await findReservation(deps.db, caller.merchantId, reference);
  if (!r) throw new AppError('reservationNotFound');
  return reservationAnswer(r, deps.clock.nowMs());
}

/** DELETE: frees what the reservation holds. Cancelling a finished one answers it as it is. */
export async function cancelReservation(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  reference: string,
  keep?: KeepAnswer,
): Promise<ReservationAnswer> {
  const nowMs = deps.clock.nowMs();
  const out = await deps.db.transaction().execute(async (trx) => {
    const r = await findReservation(trx, caller.merchantId, reference, { forUpdate: true });
    if (!r) throw new AppError('reservationNotFound');
    if (r.status !== 'active' || r.expiresAt.getTime() <= nowMs) {
      return { events: 0, body: reservationAnswer(r, nowMs) };
    }
    await updateReservation(trx, r.id, { remainingMinor: 0, status: 'cancelled' }, nowMs);
    const txId = await findTransactionOf(trx, { reservationId: r.id }, 'reservation');
    const moved = txId === null ? null : await setTransactionStatus(trx, txId, 'cancelled', nowMs);
    const events = moved
      ? await emitStatusChange(
          trx,
          {
            merchantId: caller.merchantId,
            transactionId: moved.id,
            kind: 'reservation',
            status: 'cancelled',
            previousStatus: moved.previousStatus,
            amountMinor: moved.amountMinor,
            currency: moved.currency,
            profileReference: null,
            basketId: null,
          },
          nowMs,
        )
      : 0;
    const body = reservationAnswer({ ...r, status: 'cancelled', remainingMinor: 0 }, nowMs);
    if (keep) await keep(trx, body);
    return { events, body };
  });
  if (out.events > 0) deps.afterCommit();
  return out.body;
}
