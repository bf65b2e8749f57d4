import type { Migration } from './migration.js';

/**
 * Customer and gift cards, consumer profiles with one-time passwords, and the balance ledger.
 *
 * The ledger follows TigerBeetle: accounts, and immutable transfers that each debit one account
 * and credit another by the same amount. A customer account's balance is credits minus debits;
 * its cached `balance_minor` is changed only by the statement that writes the transfer, and a
 * CHECK keeps it from ever going below zero. The merchant's stored-value liability account is
 * the other side of every top-up and withdrawal; it keeps no cached balance (see decisions).
 *
 * The function this migration made or changed is kept in its file,
 * `src/ledger/sql/ledger_transfers_immutable.sql`, which the migrator applies whenever it changes,
 * before the numbered migrations, so that the trigger here finds it (docs/architecture.md, "The
 * stored-function layer").
 */
export const cards: Migration = {
  name: '0003-cards',
  statements: [
    `CREATE TABLE ledger_accounts (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       kind text NOT NULL CHECK (kind IN ('liability', 'card', 'profile')),
       currency char(3) NOT NULL,
       balance_minor bigint NOT NULL DEFAULT 0,
       status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
       created_at timestamptz NOT NULL DEFAULT now(),
       CHECK (kind = 'liability' OR balance_minor >= 0),
       CHECK (kind <> 'liability' OR balance_minor = 0))`,
    `CREATE UNIQUE INDEX ledger_accounts_liability ON ledger_accounts (merchant_id, currency)
       WHERE kind = 'liability'`,
    `CREATE TABLE ledger_transfers (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       transaction_id text NOT NULL,
       kind text NOT NULL CHECK (kind IN ('top_up', 'withdrawal', 'merge')),
       debit_account_id bigint NOT NULL REFERENCES ledger_accounts(id),
       credit_account_id bigint NOT NULL REFERENCES ledger_accounts(id),
       amount_minor bigint NOT NULL CHECK (amount_minor > 0),
       currency char(3) NOT NULL,
       card_id bigint,
       token_id text,
       balance_after_minor bigint NOT NULL,
       tracking_unit_id text,
       created_at timestamptz NOT NULL,
       CHECK (debit_account_id <> credit_account_id),
       UNIQUE (merchant_id, transaction_id))`,
    `CREATE INDEX ledger_transfers_debit ON ledger_transfers (debit_account_id)`,
    `CREATE INDEX ledger_transfers_credit ON ledger_transfers (credit_account_id)`,
    `CREATE TRIGGER ledger_transfers_no_change BEFORE UPDATE OR DELETE ON ledger_transfers
       FOR EACH ROW EXECUTE FUNCTION ledger_transfers_immutable()`,
    `CREATE TABLE profiles (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       full_name text,
       email text,
       language text,
       partner_user_id text,
       account_id bigint NOT NULL REFERENCES ledger_accounts(id),
       is_top_up_allowed boolean NOT NULL DEFAULT true,
       is_charge_allowed boolean NOT NULL DEFAULT true,
       max_amount_minor bigint,
       max_single_top_up_minor bigint,
       min_single_top_up_minor bigint,
       max_monthly_top_up_minor bigint,
       created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX profiles_merchant ON profiles (merchant_id)`,
    `CREATE TABLE tags (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       name text NOT NULL,
       UNIQUE (merchant_id, name))`,
    `CREATE TABLE profile_tags (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       profile_id bigint NOT NULL REFERENCES profiles(id),
       tag_id bigint NOT NULL REFERENCES tags(id),
       PRIMARY KEY (profile_id, tag_id))`,
    `CREATE TABLE profile_otps (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       otp_sha256 text NOT NULL,
       profile_id bigint NOT NULL REFERENCES profiles(id),
       expires_at timestamptz NOT NULL,
       spent_at timestamptz,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (merchant_id, otp_sha256))`,
    `CREATE TABLE cards (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       token_id text NOT NULL,
       token_type smallint NOT NULL CHECK (token_type IN (0, 1)),
       state text NOT NULL CHECK (state IN ('registered', 'locked', 'released')),
       expires_at timestamptz,
       profile_id bigint REFERENCES profiles(id),
       account_id bigint NOT NULL REFERENCES ledger_accounts(id),
       registered_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       UNIQUE (merchant_id, token_id))`,
    `CREATE INDEX cards_profile ON cards (profile_id) WHERE profile_id IS NOT NULL`,
    `ALTER TABLE baskets ADD COLUMN profile_id bigint`,
  ],
};
