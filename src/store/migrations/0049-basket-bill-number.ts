import type { Migration } from './migration.js';

/**
 * A basket's bill number as a column of its own, written by the upload beside the body it comes
 * from (`write_basket`, `write_baskets`), and the index that finds a merchant's baskets by bill
 * number on it (migrations 0033, 0044; docs/decisions.md, "Finding baskets and customers"). The
 * index's expression `body->>'BillNumber'` parsed the whole JSON body of every upload once more
 * after its input had: about a fifth of the database's CPU per upload of a 20-position basket in
 * batches of 16 (docs/performance.md, "The terminal's check inlined, the bill number a column").
 * The column holds what that expression gives: the body's BillNumber, or NULL without one.
 */
export const basketBillNumber: Migration = {
  name: '0049-basket-bill-number',
  statements: [
    `ALTER TABLE baskets ADD COLUMN bill_number text`,
    `UPDATE baskets SET bill_number = body->>'BillNumber' WHERE body->>'BillNumber' IS NOT NULL`,
    `DROP INDEX baskets_merchant_bill`,
    `CREATE INDEX baskets_merchant_bill ON baskets (merchant_id, bill_number)`,
  ],
};
