/**
 * The outbox topic of purchase notifications: a grant, a return that changed the points, a
 * checkout order paid from the balance, and a refund of one (docs/decisions.md, "Notifications,
 * receipts and the consumer portal", "Who is notified"; "The purchase mail of an order paid from
 * the balance"). The message is written by `queue_purchase_notification`
 * (src/notifications/sql/queue_purchase_notification.sql), which names this topic.
 */
export const PURCHASE_NOTIFICATION = 'purchase.notification';

/** The outbox payload of a purchase notification: ids only, the handler reads the rest when it sends. */
export interface PurchaseNotification {
  readonly receiptId: string;
  readonly profileId: number;
  readonly event: 'grant' | 'return' | 'order' | 'refund';
}
