import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import {
  undeliveredBasketReceipts,
  undeliveredOrderReceipts,
  lockBasketReceipt,
  lockOrderReceipt,
  queueNotification,
  receiptNotificationState,
} from './purchase-notification.store.js';

/**
 * Queues the purchase notification of a receipt whose row the caller locked once more, due now:
 * refused while the last one is still on its way, and when the profile can be reached no more.
 */
async function queueAgain(
  trx: Kysely<DB>,
  merchantId: number,
  receipt: { receiptId: string; profileId: number; event: 'grant' | 'order' },
  nowMs: number,
): Promise<void> {
  const last = await receiptNotificationState(trx, merchantId, receipt.receiptId);
  if (last?.kind === 'pending') throw new AppError('receiptMailPending');
  const queued = await queueNotification(trx, merchantId, receipt, nowMs);
  if (!queued) throw new AppError('receiptMailNobody');
}

/**
 * Sends a basket's receipt to its customer again (docs/decisions.md, "Sending the receipt again"):
 * a new purchase notification of the grant, due now, to the profile's address as it is now (after
 * an owner corrected it, say). Refused while the last one is still on its way, before the grant, and
 * when nobody can be reached. Two requests at once queue one message: the receipt's row is locked.
 */
export async function sendReceiptAgain(
  db: Kysely<DB>,
  basket: { merchantId: number; trackingUnitId: string; basketId: string },
  nowMs: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const found = await lockBasketReceipt(trx, basket.merchantId, basket.trackingUnitId, basket.basketId);
    if (!found) throw new AppError('notFound', 'No basket under this id.');
    if (found.receiptId === null) throw new AppError('receiptMissing');
    if (found.profileId === null) throw new AppError('receiptMailNobody');
    const { receiptId, profileId } = found;
    await queueAgain(trx, basket.merchantId, { receiptId, profileId, event: 'grant' }, nowMs);
  });
}

/**
 * Sends a checkout order's receipt to its customer again, as `sendReceiptAgain` a basket's
 * (docs/decisions.md, "Sending a checkout order's receipt again"): a new purchase notification of
 * the order. Only an order paid from the balance sent one ("The purchase mail of an order paid from
 * the balance"); for one the shop took payment for otherwise it is refused.
 */
export async function sendOrderReceiptAgain(
  db: Kysely<DB>,
  order: { merchantId: number; orderId: string },
  nowMs: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const found = await lockOrderReceipt(trx, order.merchantId, order.orderId);
    if (!found) throw new AppError('notFound', 'No such order of this merchant.');
    if (found.chargedMinor === 0) throw new AppError('receiptMailPaidOtherwise');
    if (found.receiptId === null) throw new AppError('receiptMissing');
    const { receiptId, profileId } = found;
    await queueAgain(trx, order.merchantId, { receiptId, profileId, event: 'order' }, nowMs);
  });
}

/** At most this many receipts are sent again in one request (docs/decisions.md, "Sending the receipt again"). */
export const RESEND_AT_ONCE = 100;

/** A receipt of the customer's whose mail did not arrive: a basket's or a checkout order's. */
export type UndeliveredReceipt =
  { trackingUnitId: string; basketId: string; atMs: number } | { orderId: string; atMs: number };

/**
 * The customer's receipts whose mail was refused or given up, of their baskets and of their
 * checkout orders paid from the balance, newest first: the newest `RESEND_AT_ONCE` of them.
 */
export async function undeliveredReceipts(
  db: Kysely<DB>,
  customer: { merchantId: number; profileId: number },
): Promise<UndeliveredReceipt[]> {
  const { merchantId, profileId } = customer;
  const [baskets, orders] = await Promise.all([
    undeliveredBasketReceipts(db, merchantId, profileId, RESEND_AT_ONCE),
    undeliveredOrderReceipts(db, merchantId, profileId, RESEND_AT_ONCE),
  ]);
  return [...baskets, ...orders].sort((a, b) => b.atMs - a.atMs).slice(0, RESEND_AT_ONCE);
}

/**
 * Sends again every receipt `undeliveredReceipts` finds, each as `sendReceiptAgain` or
 * `sendOrderReceiptAgain` does; a receipt another request sent again meanwhile is left to that one.
 * Answers how many were queued.
 */
export async function sendUndeliveredReceiptsAgain(
  db: Kysely<DB>,
  customer: { merchantId: number; profileId: number },
  nowMs: number,
): Promise<number> {
  const { merchantId } = customer;
  let queued = 0;
  for (const r of await undeliveredReceipts(db, customer)) {
    try {
      if ('orderId' in r) await sendOrderReceiptAgain(db, { merchantId, orderId: r.orderId }, nowMs);
      else await sendReceiptAgain(db, { merchantId, ...r }, nowMs);
      queued += 1;
    } catch (err) {
      if (!(err instanceof AppError && err.entry.code === 'receipt_mail_pending')) throw err;
    }
  }
  return queued;
}
