import type { Migration } from './migration.js';

/**
 * The merchant portal (docs/decisions.md "Merchant portal").
 *
 * - `portal_users`: people who sign in to a merchant's portal. The e-mail is unique across
 *   merchants (it alone names the merchant at sign-in); the password is stored as an scrypt hash
 *   with its salt and parameters; failed sign-ins are counted for the lock-out.
 * - `portal_sessions`: only the SHA-256 of the session token is stored, with its expiry and the
 *   CSRF token tied to it.
 * - The dashboard reads baskets by merchant and time: `reward_minor` (the value of the rewards a
 *   grant booked, generated from `grant_result`) and a covering index make that an index-only
 *   scan; points movements get the same by merchant and time.
 *
 * The functions this migration made or changed are kept in their files,
 * `src/baskets/sql/grant_reward_minor.sql`, `src/baskets/sql/grant_campaign_ids.sql`,
 * `src/baskets/sql/grant_campaign_minor.sql`, which the migrator applies whenever they change,
 * before the numbered migrations, so that the generated columns here find them
 * (docs/architecture.md, "The stored-function layer").
 */
export const portal: Migration = {
  name: '0014-portal',
  statements: [
    `CREATE TABLE portal_users (
       id bigserial PRIMARY KEY,
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       email text NOT NULL UNIQUE,
       password_hash text NOT NULL,
       role text NOT NULL CHECK (role IN ('owner', 'staff')),
       lang text CHECK (lang IN ('de', 'en')),
       failed_sign_ins integer NOT NULL DEFAULT 0,
       locked_until timestamptz,
       created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX portal_users_merchant ON portal_users (merchant_id, id)`,
    `CREATE TABLE portal_sessions (
       token_sha256 text PRIMARY KEY,
       user_id bigint NOT NULL REFERENCES portal_users(id) ON DELETE CASCADE,
       merchant_id bigint NOT NULL,
       csrf_token text NOT NULL,
       created_at timestamptz NOT NULL,
       expires_at timestamptz NOT NULL)`,
    `CREATE INDEX portal_sessions_expiry ON portal_sessions (expires_at)`,
    // Why a portal user corrected a balance: the posting is on the ledger, the reason here.
    `CREATE TABLE portal_corrections (
       transaction_id text PRIMARY KEY,
       merchant_id bigint NOT NULL,
       user_id bigint NOT NULL REFERENCES portal_users(id),
       token_id text NOT NULL,
       reason text NOT NULL,
       created_at timestamptz NOT NULL)`,
    `ALTER TABLE baskets ADD COLUMN reward_minor bigint
       GENERATED ALWAYS AS (grant_reward_minor(grant_result)) STORED`,
    `ALTER TABLE baskets ADD COLUMN reward_campaign_ids bigint[]
       GENERATED ALWAYS AS (grant_campaign_ids(grant_result)) STORED`,
    `ALTER TABLE baskets ADD COLUMN reward_campaign_minor bigint[]
       GENERATED ALWAYS AS (grant_campaign_minor(grant_result)) STORED`,
    `CREATE INDEX baskets_merchant_time ON baskets (merchant_id, timestamp_utc)
       INCLUDE (outlet_id, total_value_minor, reward_minor)`,
    `CREATE INDEX points_movements_merchant_time ON points_movements (merchant_id, created_at)
       INCLUDE (kind, points, tracking_unit_id)`,
    `CREATE INDEX campaign_usages_merchant_time ON campaign_usages (merchant_id, created_at)
       INCLUDE (campaign_id, used, released)`,
  ],
};
