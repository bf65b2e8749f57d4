import type { Migration } from './migration.js';

/**
 * The hash of the bytes a bulk upload sent for an article (docs/decisions.md, "Sortiment"): an
 * article sent again byte for byte is found by it, one lookup per batch, and counted as unchanged
 * without being parsed, checked or written again. NULL for rows written otherwise (single writes,
 * XML uploads, rows from before this column): those are compared by their content hash.
 */
export const sortimentRawHash: Migration = {
  name: '0041-sortiment-raw-hash',
  statements: [
    `ALTER TABLE sortiment_articles ADD COLUMN raw_hash text`,
    `CREATE INDEX sortiment_articles_raw ON sortiment_articles (sortiment_id, raw_hash)
       WHERE to_gen IS NULL AND raw_hash IS NOT NULL`,
  ],
};
