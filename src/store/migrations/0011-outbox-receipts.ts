import type { Migration } from './migration.js';

/**
 * The outbox (docs/decisions.md "Outbox and dispatcher") and the receipts' public ids
 * (docs/decisions.md "Receipts").
 *
 * A message is written in the same transaction as the change it reports and sent afterwards by
 * the dispatcher of any server process: `locked_until` is the lease of the process that claimed it,
 * so the claim of a killed process runs out and another process (or the restarted one) sends it.
 * Every attempt is one row of `outbox_attempts`.
 */
export const outboxReceipts: Migration = {
  name: '0011-outbox-receipts',
  statements: [
    `CREATE TABLE outbox_messages (
       id bigserial PRIMARY KEY,
       merchant_id bigint NOT NULL REFERENCES merchants (id),
       topic text NOT NULL CHECK (length(topic) BETWEEN 1 AND 100),
       payload jsonb NOT NULL,
       status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
       attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
       next_attempt_at timestamptz NOT NULL,
       locked_until timestamptz,
       last_error text,
       created_at timestamptz NOT NULL DEFAULT now(),
       delivered_at timestamptz,
       CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
     )`,
    // The dispatcher's claim reads only what is due.
    `CREATE INDEX outbox_messages_due ON outbox_messages (next_attempt_at) WHERE status = 'pending'`,
    `CREATE INDEX outbox_messages_merchant ON outbox_messages (merchant_id, topic, created_at DESC)`,
    `CREATE TABLE outbox_attempts (
       id bigserial PRIMARY KEY,
       message_id bigint NOT NULL REFERENCES outbox_messages (id) ON DELETE CASCADE,
       attempt integer NOT NULL CHECK (attempt >= 1),
       started_at timestamptz NOT NULL,
       finished_at timestamptz NOT NULL,
       ok boolean NOT NULL,
       error text,
       detail jsonb,
       UNIQUE (message_id, attempt)
     )`,
    `CREATE TABLE receipts (
       id text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{22,64}$'),
       merchant_id bigint NOT NULL REFERENCES merchants (id),
       kind text NOT NULL CHECK (kind IN ('pos_basket', 'checkout_order')),
       source_ref text NOT NULL CHECK (length(source_ref) BETWEEN 1 AND 300),
       created_at timestamptz NOT NULL DEFAULT now(),
       UNIQUE (merchant_id, kind, source_ref)
     )`,
  ],
};
