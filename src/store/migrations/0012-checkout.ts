import type { Migration } from './migration.js';

/**
 * The checkout interface v1 (docs/decisions.md, "Checkout v1").
 *
 * - Checkout clients of a merchant: the access token kept only as its SHA-256, the security
 *   secret kept as it is, since the Security-Token is an HMAC keyed with it.
 * - Orders, keyed by the client's basketId per merchant, with the answer as sent.
 * - Balance transactions (top-up, charge, refund, reservation), each with a status; the money
 *   itself moves only as ledger transfers, which gain the kinds `charge` and `refund`.
 * - Reservations: holds on a profile's balance. Expiry is a time (`expires_at`), compared at read
 *   time, so no job has to run for a balance to be right.
 * - Idempotency keys per client, kept 24 hours, inserted before the work starts so that a
 *   concurrent repeat sees the first one in flight.
 * - Webhook registrations with their signing secret.
 */
export const checkout: Migration = {
  name: '0012-checkout',
  statements: [
    `CREATE TABLE checkout_clients (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       name text NOT NULL,
       access_token_sha256 text NOT NULL UNIQUE,
       security_secret text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       revoked_at timestamptz)`,
    `CREATE INDEX checkout_clients_merchant ON checkout_clients (merchant_id)`,
    `ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_kind_check`,
    `ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_kind_check
       CHECK (kind IN ('top_up', 'withdrawal', 'merge', 'charge', 'refund'))`,
    `ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_authorised_by_check`,
    `ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_authorised_by_check
       CHECK (authorised_by IN ('unrecorded', 'md5', 'v2', 'operator', 'checkout'))`,
    `CREATE TABLE checkout_orders (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id text PRIMARY KEY,
       client_id bigint NOT NULL REFERENCES checkout_clients(id),
       basket_id text NOT NULL,
       profile_id bigint NOT NULL REFERENCES profiles(id),
       status text NOT NULL CHECK (status IN ('completed', 'refunded')),
       currency char(3) NOT NULL,
       total_gross_minor bigint NOT NULL,
       charged_minor bigint NOT NULL DEFAULT 0,
       receipt_id text,
       priced jsonb NOT NULL,
       created_at timestamptz NOT NULL,
       refunded_at timestamptz,
       UNIQUE (merchant_id, basket_id))`,
    `CREATE TABLE checkout_reservations (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id text PRIMARY KEY,
       profile_id bigint NOT NULL REFERENCES profiles(id),
       currency char(3) NOT NULL,
       amount_minor bigint NOT NULL CHECK (amount_minor > 0),
       remaining_minor bigint NOT NULL CHECK (remaining_minor >= 0),
       status text NOT NULL CHECK (status IN ('active', 'used', 'cancelled')),
       expires_at timestamptz NOT NULL,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL)`,
    `CREATE INDEX checkout_reservations_live ON checkout_reservations (profile_id, expires_at)
       WHERE status = 'active'`,
    `CREATE TABLE balance_transactions (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id text PRIMARY KEY,
       profile_id bigint NOT NULL REFERENCES profiles(id),
       kind text NOT NULL CHECK (kind IN ('top_up', 'charge', 'refund', 'reservation')),
       status text NOT NULL,
       amount_minor bigint NOT NULL,
       currency char(3) NOT NULL,
       order_id text,
       reservation_id text,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL)`,
    `CREATE INDEX balance_transactions_profile ON balance_transactions (profile_id, created_at)`,
    `CREATE INDEX balance_transactions_order ON balance_transactions (order_id) WHERE order_id IS NOT NULL`,
    `CREATE INDEX balance_transactions_reservation ON balance_transactions (reservation_id)
       WHERE reservation_id IS NOT NULL`,
    `CREATE TABLE checkout_idempotency_keys (
       client_id bigint NOT NULL REFERENCES checkout_clients(id),
       key text NOT NULL,
       request_sha256 text NOT NULL,
       status text NOT NULL CHECK (status IN ('in_flight', 'done')),
       response_status integer,
       response_body text,
       created_at timestamptz NOT NULL,
       expires_at timestamptz NOT NULL,
       PRIMARY KEY (client_id, key))`,
    `CREATE TABLE webhooks (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id text PRIMARY KEY,
       url text NOT NULL,
       event text NOT NULL,
       secret text NOT NULL,
       created_at timestamptz NOT NULL,
       deleted_at timestamptz)`,
    `CREATE INDEX webhooks_merchant_event ON webhooks (merchant_id, event) WHERE deleted_at IS NULL`,
  ],
};
