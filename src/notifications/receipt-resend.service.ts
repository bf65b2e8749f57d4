import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import {
  undeliveredBasketReceipts,
  lockBasketReceipt,
  queueNotification,
  receiptNotificationState,
} from './purchase-notification.store.js';

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
    const last = await receiptNotificationState(trx, basket.merchantId, found.receiptId);
    if (last?.kind === 'pending') throw new AppError('receiptMailPending');
    const queued = await queueNotification(
      trx,
      basket.merchantId,
      { receiptId: found.receiptId, profileId: found.profileId, event: 'grant' },
      nowMs,
    );
    if (!queued) throw new AppError('receiptMailNobody');
  });
}

/** At most this many receipts are sent again in one request (docs/decisions.md, "Sending the receipt again"). */
export const RESEND_AT_ONCE = 100;

/**
 * Sends again every receipt of the customer's baskets whose mail was refused or given up (the newest
 * `RESEND_AT_ONCE`), each as `sendReceiptAgain` does; a receipt another request sent again meanwhile
 * is left to that one. Answers how many were queued.
 */
export async function sendUndeliveredReceiptsAgain(
  db: Kysely<DB>,
  customer: { merchantId: number; profileId: number },
  nowMs: number,
): Promise<number> {
  const baskets = await undeliveredBasketReceipts(
    db,
    customer.merchantId,
    customer.profileId,
    RESEND_AT_ONCE,
  );
  let queued = 0;
  for (const b of baskets) {
    try {
      await sendReceiptAgain(db, { merchantId: customer.merchantId, ...b }, nowMs);
      queued += 1;
    } catch (err) {
      if (!(err instanceof AppError && err.entry.code === 'receipt_mail_pending')) throw err;
    }
  }
  return queued;
}
