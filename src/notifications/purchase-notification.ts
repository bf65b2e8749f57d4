/** The outbox topic of purchase notifications (a grant, or a return that changed the points). */
export const PURCHASE_NOTIFICATION = 'purchase.notification';

/** The outbox payload of a purchase notification: ids only, the handler reads the rest when it sends. */
export interface PurchaseNotification {
  readonly receiptId: string;
  readonly profileId: number;
  readonly event: 'grant' | 'return';
}
