import type { Kysely } from 'kysely';
import { findReceiptOf, posBasketSourceRef, receiptPath } from '../receipts/receipt.store.js';
import type { DB } from '../store/schema.js';
import {
  type ReceiptNotificationState,
  receiptNotificationState,
} from '../notifications/purchase-notification.store.js';

/**
 * The receipt page of a basket, `/receipts/{id}` (docs/decisions.md, "Notifications, receipts and
 * the consumer portal", "Receipt links"), and what became of its purchase notification ("What
 * became of the receipt mail"), or null while no receipt exists.
 */
export async function receiptOf(
  db: Kysely<DB>,
  merchantId: number,
  trackingUnitId: string,
  basketId: string,
): Promise<{ url: string; receiptMail: ReceiptNotificationState | null } | null> {
  const receipt = await findReceiptOf(
    db,
    merchantId,
    'pos_basket',
    posBasketSourceRef(trackingUnitId, basketId),
  );
  if (!receipt) return null;
  return {
    url: receiptPath(receipt.id),
    receiptMail: await receiptNotificationState(db, merchantId, receipt.id),
  };
}
