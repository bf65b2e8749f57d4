import type { Migration } from './migration.js';

/**
 * The basket search finds the baskets whose receipt mail is not delivered yet, refused or given up
 * (docs/decisions.md, "What became of the receipt mail") from the merchant's purchase notifications
 * not delivered, a few among many, not by reading every notification the merchant ever sent.
 */
export const unsettledNotifications: Migration = {
  name: '0059-unsettled-notifications',
  statements: [
    `CREATE INDEX outbox_messages_unsettled ON outbox_messages (merchant_id)
       WHERE topic = 'purchase.notification' AND status <> 'delivered'`,
  ],
};
