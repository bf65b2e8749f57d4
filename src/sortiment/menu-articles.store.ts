import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import type { StoredArticle } from './article.js';
import { liveAt } from './generations.store.js';

/**
 * For checkout pricing: the articles of a merchant's sortiment (the `menuId` of an order) under
 * the given PLUs, in the generation readers see. Null when the merchant has no such sortiment;
 * PLUs not found are absent from the map.
 */
export async function readMenuArticles(
  db: Kysely<DB>,
  merchantId: number,
  menuId: number,
  plus: readonly string[],
): Promise<{ articles: Map<string, StoredArticle>; rulesVersion: number } | null> {
  // The merchant's rules version comes along: pricing needs it for the campaign rule set.
  const sortiment = await db
    .selectFrom('sortiments as s')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .select(['s.id', 's.current_gen', 'm.rules_version'])
    .where('s.merchant_id', '=', merchantId)
    .where('s.id', '=', menuId)
    .executeTakeFirst();
  if (!sortiment) return null;
  const out = new Map<string, StoredArticle>();
  if (plus.length === 0) return { articles: out, rulesVersion: sortiment.rules_version };
  const rows = await db
    .selectFrom('sortiment_articles as a')
    .select(['a.plu', 'a.body'])
    .where('a.sortiment_id', '=', sortiment.id)
    .where('a.merchant_id', '=', merchantId)
    .where('a.plu', 'in', [...new Set(plus)])
    .where(liveAt('a', sortiment.current_gen))
    .execute();
  for (const r of rows) out.set(r.plu, r.body as StoredArticle);
  return { articles: out, rulesVersion: sortiment.rules_version };
}
