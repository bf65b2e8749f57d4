import type { Migration } from './migration.js';

/**
 * The customers' stored balance on the dashboard (docs/decisions.md, "The customers' stored
 * balance on the dashboard"): the transfers of the merchant's liability account in a period are
 * found by the account and the time, and what the merchant's cards and profiles hold now by the
 * merchant, so that a view reads the period's transfers, not every transfer since the first. The
 * ledger's two indexes by account take the time as a second column (no index entry more per
 * transfer: the ones every booking writes anyway, a time wider); the accounts by merchant are
 * written once per card or profile.
 */
export const ledgerAccountTime: Migration = {
  name: '0067-ledger-account-time',
  statements: [
    `CREATE INDEX ledger_transfers_debit_time ON ledger_transfers (debit_account_id, created_at)`,
    `DROP INDEX ledger_transfers_debit`,
    `CREATE INDEX ledger_transfers_credit_time ON ledger_transfers (credit_account_id, created_at)`,
    `DROP INDEX ledger_transfers_credit`,
    `CREATE INDEX ledger_accounts_merchant ON ledger_accounts (merchant_id) WHERE kind <> 'liability'`,
  ],
};
