import { type Kysely, sql } from 'kysely';
import type { DB } from '../../src/store/schema.js';

/** Articles and stored rows of the bulk upload's tests. */

export function article(plu: string, group: string, name: string): Record<string, unknown> {
  return {
    PLU: plu,
    GroupId: group,
    Name: [{ lang: 'de', val: `${name} ${plu}` }],
    Prices: [{ Value: 2.5, CurrencyIso: 'EUR' }],
  };
}

/** The PLUs from `from` to `to`, three digits at least. */
export const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => String(from + i).padStart(3, '0'));

/** Every column of the sortiment's open rows that an upload decides, in PLU order. */
export const openRowsOf = async (db: Kysely<DB>, sid: number) =>
  (
    await sql<Record<string, unknown>>`
      SELECT plu, group_id, body::text AS body, content_hash, raw_hash FROM sortiment_articles
      WHERE sortiment_id = ${sid} AND to_gen IS NULL ORDER BY plu`.execute(db)
  ).rows;
