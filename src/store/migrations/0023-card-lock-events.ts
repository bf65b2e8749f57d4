import type { Migration } from './migration.js';

/**
 * Card locks recorded (docs/decisions.md "Merchant portal", card locks): every lock and unlock of a
 * card with who did it (a portal user, or the till that locked it through the POS interface), when,
 * and the reason when one was given. The unlocks recorded so far (`card_unlocks`, migration 0019)
 * move into it, and that table goes.
 */
export const cardLockEvents: Migration = {
  name: '0023-card-lock-events',
  statements: [
    `CREATE TABLE card_lock_events (
       id bigserial PRIMARY KEY,
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       card_id bigint NOT NULL REFERENCES cards(id),
       action text NOT NULL CHECK (action IN ('lock', 'unlock')),
       portal_user_id bigint REFERENCES portal_users(id),
       tracking_unit_id text,
       reason text,
       at timestamptz NOT NULL,
       CHECK ((portal_user_id IS NULL) <> (tracking_unit_id IS NULL)))`,
    `INSERT INTO card_lock_events (merchant_id, card_id, action, portal_user_id, at)
       SELECT merchant_id, card_id, 'unlock', user_id, unlocked_at FROM card_unlocks ORDER BY id`,
    `DROP TABLE card_unlocks`,
    `CREATE INDEX card_lock_events_card ON card_lock_events (card_id, id)`,
  ],
};
