import type { Migration } from './migration.js';

/**
 * The merchant portal's developers page and card unlock (docs/decisions.md "Merchant portal").
 *
 * - `card_unlocks`: who unlocked a locked card and when (an owner of the portal). A lock is undone
 *   only there; the POS interface has no unlock.
 * - The portal lists a merchant's webhook deliveries newest first, a page at a time by id: an index
 *   by merchant, topic and id serves that without sorting the merchant's whole outbox.
 */
export const portalDevelopers: Migration = {
  name: '0019-portal-developers',
  statements: [
    `CREATE TABLE card_unlocks (
       id bigserial PRIMARY KEY,
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       card_id bigint NOT NULL REFERENCES cards(id),
       user_id bigint NOT NULL REFERENCES portal_users(id),
       unlocked_at timestamptz NOT NULL)`,
    `CREATE INDEX card_unlocks_card ON card_unlocks (card_id, id)`,
    `CREATE INDEX outbox_messages_merchant_topic_id ON outbox_messages (merchant_id, topic, id DESC)`,
  ],
};
