import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { liveAt } from './generations.store.js';

/**
 * For the reward engine: the groups of each article, nearest first. For every PLU found in the
 * merchant's sortiment, its GroupId followed by all ancestor group Ids (through UpGroupId); an
 * article without a group maps to an empty list; PLUs not found are absent. One query, over the
 * generation of the sortiment readers see (a bulk upload in progress changes nothing here).
 */
export async function loadArticleGroups(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  plus: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (plus.length === 0) return out;
  const wanted = JSON.stringify([...new Set(plus)]);
  // depth bounds the walk even if a cycle ever got in (the writers refuse them).
  const result = await sql<{ plu: string; group_id: string | null }>`
    WITH RECURSIVE chain(plu, group_id, depth) AS (
      SELECT a.plu, a.group_id, 0
      FROM sortiments s JOIN sortiment_articles a ON a.sortiment_id = s.id
      WHERE s.id = ${sortimentId} AND a.merchant_id = ${merchantId}
        AND a.plu IN (SELECT json_array_elements_text(${wanted}::json)) AND ${liveAt('a', sql.ref('s.current_gen'))}
      UNION ALL
      SELECT c.plu, g.up_group_id, c.depth + 1
      FROM chain c
      JOIN sortiment_groups g ON g.sortiment_id = ${sortimentId} AND g.id = c.group_id
      WHERE g.up_group_id IS NOT NULL AND c.depth < 100
    )
    SELECT plu, group_id FROM chain ORDER BY plu, depth`.execute(db);
  for (const row of result.rows) {
    let groups = out.get(row.plu);
    if (!groups) {
      groups = [];
      out.set(row.plu, groups);
    }
    if (row.group_id !== null) groups.push(row.group_id);
  }
  return out;
}
