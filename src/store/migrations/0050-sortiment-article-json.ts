import type { Migration } from './migration.js';

/**
 * An article's body kept as `json` instead of `jsonb` (docs/decisions.md, "Sortiment", Storage).
 * The writers send the canonical text the content hash is taken of; `jsonb` parsed it into a tree
 * for every row written, about a third of the database's CPU for a 100,000-article upload, and
 * stored it larger (docs/performance.md, "The article body as json"). Every reader takes the body
 * whole or a field of it with `->` / `->>`, which `json` has too, and answers are built field by
 * field, so neither their content nor their key order changes. Rows written before keep the text
 * `jsonb` gave them (its key order, a space after `:` and `,`), which reads as the same values.
 */
export const sortimentArticleJson: Migration = {
  name: '0050-sortiment-article-json',
  statements: [`ALTER TABLE sortiment_articles ALTER COLUMN body TYPE json USING body::json`],
};
