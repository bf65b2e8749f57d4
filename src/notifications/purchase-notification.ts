import type { Kysely } from 'kysely';
import { enqueueOutbox } from '../outbox/outbox.store.js';
import type { DB } from '../store/schema.js';

/**
 * The outbox topic of purchase notifications: a grant, a return that changed the points, a
 * checkout order paid from the balance, and a refund of one (docs/decisions.md, "Notifications,
 * receipts and the consumer portal", "Who is notified"; "The purchase mail of an order paid from
 * the balance"). The order functions (src/orders/sql/place_order.sql, place_orders.sql) write the
 * same topic and payload in their statement.
 */
export const PURCHASE_NOTIFICATION = 'purchase.notification';

/** The outbox payload of a purchase notification: ids only, the handler reads the rest when it sends. */
export interface PurchaseNotification {
  readonly receiptId: string;
  readonly profileId: number;
  readonly event: 'grant' | 'return' | 'order' | 'refund';
}

/** Queues a purchase notification in the caller's transaction, due at `nowMs`. */
export async function queueNotification(
  trx: Kysely<DB>,
  merchantId: number,
  payload: PurchaseNotification,
  nowMs: number,
): Promise<void> {
  await enqueueOutbox(trx, {
    merchantId,
    topic: PURCHASE_NOTIFICATION,
    payload: { ...payload },
    notBefore: new Date(nowMs),
  });
}
