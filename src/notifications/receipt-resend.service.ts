import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import {
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
