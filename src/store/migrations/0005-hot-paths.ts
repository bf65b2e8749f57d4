import type { Migration } from './migration.js';

/**
 * The writes of the hot paths (basket upload, card postings) as stored functions: a function's
 * statements are planned once per connection instead of on every request, which halves the cost
 * of these writes on the embedded database and cuts it on PostgreSQL.
 *
 * The functions this migration made or changed are kept in their files,
 * `src/baskets/sql/write_basket.sql`, `src/ledger/sql/post_transfer.sql`, which the migrator
 * applies whenever they change (docs/architecture.md, "The stored-function layer").
 */
export const hotPaths: Migration = {
  name: '0005-hot-paths',
  statements: [
    // Baskets are written far more often than read; compressing their JSON costs more CPU than
    // the disk it saves.
    `ALTER TABLE baskets ALTER COLUMN body SET STORAGE EXTERNAL`,
    `ALTER TABLE baskets ALTER COLUMN result SET STORAGE EXTERNAL`,
  ],
};
