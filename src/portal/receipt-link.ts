import type { Kysely } from 'kysely';
import { findReceiptOf, posBasketSourceRef } from '../receipts/receipt.store.js';
import type { DB } from '../store/schema.js';

/**
 * The receipt page of a basket, `/receipts/{id}` (docs/decisions.md, "Notifications, receipts and
 * the consumer portal", "Receipt links"), or null while none exists.
 */
export async function receiptUrlOf(
  db: Kysely<DB>,
  merchantId: number,
  trackingUnitId: string,
  basketId: string,
): Promise<string | null> {
  const receipt = await findReceiptOf(
    db,
    merchantId,
    'pos_basket',
    posBasketSourceRef(trackingUnitId, basketId),
  );
  return receipt ? `/receipts/${encodeURIComponent(receipt.id)}` : null;
}
