import type { Migration } from './migration.js';

/**
 * Webhook events receivers can trust (docs/decisions.md, "Checkout v1", "Webhooks"):
 * - opaque message ids: each `transaction.status.changed` message carries `messageId`, `msg_` and
 *   24 random base32 characters, sent as `webhook-id` (no longer `msg_` and the outbox row's
 *   sequential id, which showed a merchant's volume);
 * - `sequence` in every event: the number of the event within its balance transaction, 1 for its
 *   first status, one more for each change, so that a receiver orders them whatever the order of
 *   delivery;
 * - the same `profileReference` and `basketId` on every event of a transaction: the first event
 *   that names them keeps them on the transaction, later events (a cancellation, a refund's
 *   status change of the charge) take them from there, and a refund takes the reference of the
 *   charge of its order.
 * The one SQL function writes every event, for the order statements and the use cases alike.
 *
 * The functions this migration made or changed are kept in their files,
 * `src/orders/sql/checkout_status_changed.sql`, `src/orders/sql/random_base32.sql`, which the
 * migrator applies whenever they change (docs/architecture.md, "The stored-function layer").
 */
export const webhookEventOrder: Migration = {
  name: '0029-webhook-event-order',
  statements: [
    `ALTER TABLE balance_transactions ADD COLUMN event_sequence integer NOT NULL DEFAULT 0`,
    `ALTER TABLE balance_transactions ADD COLUMN event_profile_reference text`,
    `ALTER TABLE balance_transactions ADD COLUMN event_basket_id text`,
  ],
};
