import type { Migration } from './migration.js';

/**
 * Generations of a sortiment's articles, so that a bulk upload can write in many short
 * transactions and still switch from the old to the new sortiment at once (docs/decisions.md,
 * "Bulk upload in generations").
 *
 * An article row is live in the generations `from_gen <= g < to_gen` (`to_gen` NULL: open ended);
 * readers see the rows live in the sortiment's `current_gen`. A bulk upload writes its new rows
 * with `from_gen = current_gen + 1` and closes the rows they replace (or that it deletes) with
 * `to_gen = current_gen + 1`; one short transaction then raises `current_gen`. The writer holding
 * the sortiment's turn is named in `pending_owner` until `pending_until` (a lease it renews with
 * every chunk), so a writer that died does not block the sortiment for longer than its lease.
 */
export const sortimentGenerations: Migration = {
  name: '0008-sortiment-generations',
  statements: [
    `ALTER TABLE sortiments
       ADD COLUMN current_gen bigint NOT NULL DEFAULT 0,
       ADD COLUMN pending_owner text,
       ADD COLUMN pending_until timestamptz`,
    // Existing rows belong to generation 0; every writer names the generation from now on.
    `ALTER TABLE sortiment_articles
       ADD COLUMN from_gen bigint NOT NULL DEFAULT 0,
       ADD COLUMN to_gen bigint`,
    `ALTER TABLE sortiment_articles ALTER COLUMN from_gen DROP DEFAULT`,
    // The old and the new row of one PLU coexist while an upload is pending...
    `ALTER TABLE sortiment_articles DROP CONSTRAINT sortiment_articles_pkey,
       ADD PRIMARY KEY (sortiment_id, plu, from_gen)`,
    // ... but a PLU has at most one open row: the live one, or the pending one that replaces it.
    `CREATE UNIQUE INDEX sortiment_articles_open ON sortiment_articles (sortiment_id, plu)
       WHERE to_gen IS NULL`,
    // Closed rows, for the clean-up after a switch or after an abandoned upload (few, short-lived).
    `CREATE INDEX sortiment_articles_closed ON sortiment_articles (sortiment_id, to_gen)
       WHERE to_gen IS NOT NULL`,
  ],
};
