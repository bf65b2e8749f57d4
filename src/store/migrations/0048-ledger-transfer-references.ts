import type { Migration } from './migration.js';

/**
 * A ledger transfer is written without its three foreign-key checks (its merchant, its debit and
 * its credit account; about 6 % of the database's instructions per batch of checkout orders,
 * docs/performance.md, "Checkout orders paid from the balance"). Their one writer, `post_transfers`
 * (src/ledger/sql/post_transfers.sql), checks the accounts a transfer names when it books, once per
 * call; accounts are never deleted and keep their id and merchant (`ledger_accounts_kept`,
 * src/ledger/sql/ledger_accounts_kept.sql), so that stays true, as the keys kept it
 * (docs/decisions.md, "The ledger's references checked by its one writer").
 */
export const ledgerTransferReferences: Migration = {
  name: '0048-ledger-transfer-references',
  statements: [
    `CREATE TRIGGER ledger_accounts_no_removal BEFORE DELETE OR UPDATE OF id, merchant_id
       ON ledger_accounts FOR EACH ROW EXECUTE FUNCTION ledger_accounts_kept()`,
    `ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_merchant_id_fkey`,
    `ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_debit_account_id_fkey`,
    `ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_credit_account_id_fkey`,
  ],
};
