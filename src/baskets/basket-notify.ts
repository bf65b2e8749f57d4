import type { Transaction } from 'kysely';
import type { Consumer } from '../loyalty/consumer.js';
import type { PurchaseNotification } from '../notifications/purchase-notification.js';
import { queueNotification } from '../notifications/purchase-notification.store.js';
import type { DB } from '../store/schema.js';

/**
 * The consumer side of a return, in its transaction (docs/decisions.md, "Notifications, receipts
 * and the consumer portal", "Who is notified"): a consumer known by profile (a customer card linked
 * to it, or a one-time password) gets a purchase notification queued; a card not linked to a
 * profile has no address to notify, and a gift card never identifies a consumer, so neither queues
 * anything. The grant does the same in its write (`grant_basket`, sql/grant_basket.sql). Whether it
 * queued one.
 */
export async function queuePurchaseNotification(
  trx: Transaction<DB>,
  merchantId: number,
  consumer: Consumer | null,
  receiptId: string,
  event: PurchaseNotification['event'],
  nowMs: number,
): Promise<boolean> {
  if (consumer?.profileId === undefined) return false;
  await queueNotification(trx, merchantId, { receiptId, profileId: consumer.profileId, event }, nowMs);
  return true;
}
