import { type Kysely, sql } from 'kysely';
import type { PageRequest } from '../shared/paging.js';
import type { StoredArticle } from '../sortiment/article.js';
import { liveAt } from '../sortiment/generations.store.js';
import { accentInsensitivePattern, likeLiteral } from '../store/like-pattern.js';
import type { DB } from '../store/schema.js';

/** A merchant's sortiments, groups and articles for browsing in the portal. */

export interface SortimentListing {
  id: number;
  identifier: string;
  name: string | null;
  articles: number;
}

export async function merchantSortiments(db: Kysely<DB>, merchantId: number): Promise<SortimentListing[]> {
  const rows = await db
    .selectFrom('sortiments as s')
    .select(['s.id', 's.third_party_identifier', 's.name'])
    .select((eb) =>
      eb
        .selectFrom('sortiment_articles as a')
        .whereRef('a.sortiment_id', '=', 's.id')
        .where(liveAt('a', sql.ref<number>('s.current_gen')))
        .select((e) => e.fn.countAll<string>().as('n'))
        .as('articles'),
    )
    .where('s.merchant_id', '=', merchantId)
    .orderBy('s.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    identifier: r.third_party_identifier,
    name: r.name,
    articles: Number(r.articles ?? 0),
  }));
}

export interface CatalogArticle {
  plu: string;
  groupId: string | null;
  groupName: string | null;
  article: StoredArticle;
}

/**
 * The live articles of one of the merchant's sortiments whose PLU starts with, or whose name
 * holds, the search text (case-insensitive, accented letters read as plain ones), in PLU order: one page (`limit + 1` rows read, the
 * one past the page tells there are more) after the PLU of the cursor. Null: no such sortiment.
 */
export async function searchArticles(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  search: string,
  page: PageRequest,
): Promise<CatalogArticle[] | null> {
  const s = await db
    .selectFrom('sortiments')
    .select('current_gen')
    .where('merchant_id', '=', merchantId)
    .where('id', '=', sortimentId)
    .executeTakeFirst();
  if (!s) return null;
  // Accented letters read as plain ones on both sides: "cafe" finds Café (docs/decisions.md).
  const pattern = accentInsensitivePattern(search);
  // The stored name is JSON.stringify's text (the canonical article, src/sortiment/article.ts),
  // which escapes each character on its own (and no letter): a name holding the search holds its
  // escaped form.
  const patternInJson = accentInsensitivePattern(JSON.stringify(search).slice(1, -1));
  let q = db
    .selectFrom('sortiment_articles as a')
    .leftJoin('sortiment_groups as g', (j) =>
      j.onRef('g.sortiment_id', '=', 'a.sortiment_id').onRef('g.id', '=', 'a.group_id'),
    )
    .select(['a.plu', 'a.group_id', 'a.body', 'g.name as group_name'])
    .where('a.sortiment_id', '=', sortimentId)
    .where(liveAt('a', s.current_gen));
  if (search !== '') {
    q = q.where((eb) =>
      eb.or([
        eb('a.plu', 'like', `${likeLiteral(search)}%`),
        // The name's texts, each language's; not the stored JSON around them, whose keys ("lang",
        // "val"), language codes and quotes would match every article. The JSON's text is read
        // first, as cheaply as before: only the names it may hold are taken apart.
        sql<boolean>`((a.body->'Name')::text ~* ${patternInJson} AND EXISTS (SELECT 1 FROM json_array_elements(CASE WHEN json_typeof(a.body->'Name') = 'array' THEN a.body->'Name' ELSE '[]'::json END) AS n(text) WHERE n.text->>'val' ~* ${pattern}))`,
      ]),
    );
  }
  const after = page.after?.[0];
  if (typeof after === 'string') q = q.where('a.plu', '>', after);
  const rows = await q
    .orderBy('a.plu')
    .limit(page.limit + 1)
    .execute();
  return rows.map((r) => ({
    plu: r.plu,
    groupId: r.group_id,
    groupName: r.group_name?.[0]?.val ?? null,
    article: r.body as StoredArticle,
  }));
}
