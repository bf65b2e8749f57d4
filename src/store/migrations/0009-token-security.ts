import type { Migration } from './migration.js';

/**
 * Credentials that can be withdrawn and tokens that cannot be replayed (docs/decisions.md,
 * "SecurityTokens and credentials").
 *
 * - DevKeys are kept only as their SHA-256; existing keys are hashed here, and the clear column
 *   goes. A DevKey can be revoked: its terminals stop at once.
 * - A terminal can be deactivated by the operator (and activated again), and can be required to
 *   sign with SecurityToken-V2.
 * - A merchant can require a transactionId on addBalance and withdrawBalance.
 * - Every ledger transfer records what authorised it: the scheme and a digest of the token.
 * - Seen SecurityToken-V2 signatures, kept for their window so that no instance accepts one twice.
 * - Failed identifications counted per terminal and per merchant in fixed windows.
 * - The basket write also refuses a terminal whose DevKey is revoked, and a balance booking
 *   re-checks the terminal it was authorised for (both may start from a remembered answer).
 *
 * The functions this migration made or changed are kept in their files,
 * `src/ledger/sql/post_transfer.sql`, `src/baskets/sql/write_basket.sql`, which the migrator
 * applies whenever they change (docs/architecture.md, "The stored-function layer").
 */
export const tokenSecurity: Migration = {
  name: '0009-token-security',
  statements: [
    `ALTER TABLE dev_keys ADD COLUMN key_sha256 text`,
    `UPDATE dev_keys SET key_sha256 = encode(sha256(convert_to(dev_key, 'UTF8')), 'hex')`,
    `ALTER TABLE dev_keys ALTER COLUMN key_sha256 SET NOT NULL`,
    `CREATE UNIQUE INDEX dev_keys_key_sha256 ON dev_keys (key_sha256)`,
    `ALTER TABLE dev_keys DROP COLUMN dev_key`,
    `ALTER TABLE dev_keys ADD COLUMN revoked_at timestamptz`,
    `ALTER TABLE tracking_units ADD COLUMN deactivated_at timestamptz`,
    `ALTER TABLE tracking_units ADD COLUMN require_security_token_v2 boolean NOT NULL DEFAULT false`,
    `ALTER TABLE tracking_units ADD COLUMN checksum_secret_rotated_at timestamptz`,
    `CREATE INDEX tracking_units_dev_key ON tracking_units (dev_key_id)`,
    `ALTER TABLE merchants ADD COLUMN require_transaction_id boolean NOT NULL DEFAULT false`,
    // Transfers booked before this migration were authorised by a token nobody recorded.
    `ALTER TABLE ledger_transfers ADD COLUMN authorised_by text NOT NULL DEFAULT 'unrecorded'
       CHECK (authorised_by IN ('unrecorded', 'md5', 'v2', 'operator'))`,
    `ALTER TABLE ledger_transfers ADD COLUMN authorisation_sha256 text`,
    `CREATE TABLE security_token_signatures (
       tracking_unit_id text NOT NULL,
       signature text NOT NULL,
       expires_at timestamptz NOT NULL,
       PRIMARY KEY (tracking_unit_id, signature))`,
    `CREATE TABLE identification_failures (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       subject text NOT NULL,
       window_start timestamptz NOT NULL,
       failures integer NOT NULL,
       PRIMARY KEY (merchant_id, subject, window_start))`,
  ],
};
