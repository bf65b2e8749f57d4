import type { Migration } from './migration.js';

/**
 * A balance transaction is written with one index entry less: `balance_transactions_profile`
 * (profile_id, created_at), migration 0012, is the leading part of `balance_transactions_profile_page`
 * (profile_id, created_at, id), migration 0031, which serves every query the shorter one served
 * (a profile's transactions by time, newest first, paged by time and id). Each checkout order paid
 * from the balance wrote an entry into both (docs/performance.md, "An index entry and a conflict
 * check less per order").
 */
export const balanceTransactionProfileIndex: Migration = {
  name: '0047-balance-transaction-profile-index',
  statements: [`DROP INDEX IF EXISTS balance_transactions_profile`],
};
