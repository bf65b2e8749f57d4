import type { Migration } from './migration.js';

/**
 * Cheaper basket writes, the hot path of every till.
 *
 * - No foreign keys from baskets to merchants and terminals. Baskets have one writer,
 *   `write_basket` (migration 0005), which stores a basket only when its terminal exists, is
 *   active and belongs to the merchant, checked in the same statement; merchants and terminals
 *   are never deleted. The two key checks repeated that check on every upload and cost about an
 *   eighth of the database's time per upload.
 * - The basket body compressed with lz4 where the server has it (PostgreSQL as Debian and most
 *   distributions build it): a 20-position body then stays in the row, instead of going to the
 *   TOAST table uncompressed (two more heap rows and index entries per upload), and lz4 costs
 *   less than either. The embedded database is built without lz4; there the body stays stored
 *   as before (measured: no difference there between the storage choices).
 *
 * The functions this migration made or changed are kept in their files,
 * `src/baskets/sql/write_basket.sql`, `src/baskets/sql/write_baskets.sql`, which the migrator
 * applies whenever they change (docs/architecture.md, "The stored-function layer").
 */
export const basketWrite: Migration = {
  name: '0007-basket-write',
  statements: [
    `ALTER TABLE baskets DROP CONSTRAINT baskets_merchant_id_fkey`,
    `ALTER TABLE baskets DROP CONSTRAINT baskets_tracking_unit_id_fkey`,
    `DO $$
     BEGIN
       ALTER TABLE baskets ALTER COLUMN body SET COMPRESSION lz4;
       ALTER TABLE baskets ALTER COLUMN body SET STORAGE EXTENDED;
     EXCEPTION WHEN feature_not_supported THEN
       NULL; -- built without lz4: the storage of migration 0005 stays
     END $$`,
  ],
};
