import type { Migration } from './migration.js';

/**
 * The index that finds a merchant's baskets by bill number (migration 0033, docs/decisions.md,
 * "Finding baskets and customers") without its condition `body->>'BillNumber' IS NOT NULL`: the
 * condition read the bill number out of the basket's JSON body a second time on every upload
 * (each read parses the whole body, about 30 µs of a 20-position basket), and a search by number
 * is answered from the index without it. Baskets without a bill number are in the index too.
 */
export const basketBillIndex: Migration = {
  name: '0044-basket-bill-index',
  statements: [
    `DROP INDEX baskets_merchant_bill`,
    `CREATE INDEX baskets_merchant_bill ON baskets (merchant_id, (body->>'BillNumber'))`,
  ],
};
