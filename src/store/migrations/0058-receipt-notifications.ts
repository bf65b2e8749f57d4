import type { Migration } from './migration.js';

/**
 * A merchant reads what became of a basket's receipt mail on the basket's page (docs/decisions.md,
 * "What became of the receipt mail"): the purchase notification is found by its receipt's id, not
 * by reading every notification of the merchant.
 */
export const receiptNotifications: Migration = {
  name: '0058-receipt-notifications',
  statements: [
    `CREATE INDEX outbox_messages_receipt ON outbox_messages ((payload->>'receiptId'))
       WHERE topic = 'purchase.notification'`,
  ],
};
