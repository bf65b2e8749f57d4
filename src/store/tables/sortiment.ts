import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { CreatedAt, Json } from './columns.js';

/** Row types of sortiments, their groups and articles. */

export interface SortimentsTable {
  merchant_id: number;
  id: Generated<number>;
  third_party_identifier: string;
  name: string | null;
  /** Raised by every change of the sortiment's groups or articles: the menu ETag. */
  version: Generated<number>;
  created_at: CreatedAt;
  /** The generation of article rows readers see (src/sortiment/generations.store.ts). */
  current_gen: Generated<number>;
  /** Token of the writer holding the sortiment's turn (a bulk upload), with its lease. */
  pending_owner: ColumnType<string | null, string | null | undefined, string | null>;
  pending_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface SortimentGroupsTable {
  merchant_id: number;
  sortiment_id: number;
  id: string;
  /** Localised names, [{lang, val}]. */
  name: JSONColumnType<{ lang: string; val: string }[], string, string>;
  up_group_id: string | null;
}

export interface SortimentArticlesTable {
  merchant_id: number;
  sortiment_id: number;
  plu: string;
  group_id: string | null;
  /** The canonical article (src/sortiment/article.ts, StoredArticle); prices in minor units. */
  body: Json<'sortiment_articles.body'>;
  /** sha256 of the canonical article text: unchanged articles are not rewritten. */
  content_hash: string;
  /**
   * sha256 of the bytes a JSON bulk upload sent for the article (with the merchant's currency and
   * the reading's version): the same bytes again are unchanged without being read. NULL otherwise.
   */
  raw_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** Live in the sortiment generations from_gen <= g < to_gen (to_gen null: open ended). */
  from_gen: number;
  to_gen: ColumnType<number | null, number | null | undefined, number | null>;
}
