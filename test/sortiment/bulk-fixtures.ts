import { type Kysely, sql } from 'kysely';
import type { BulkOptions } from '../../src/sortiment/bulk-upload.js';
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

/**
 * A sortiment of 1,200 articles, then bodies that change, repeat, list twice and refuse: each
 * step's body and options. The second and third answer `{Created 5, Updated 70, Deleted 100,
 * Unchanged 1,030}` and `{Unchanged 1,105}`, the fourth to sixth are refused.
 */
export function changingSteps(): { first: unknown[]; steps: [unknown, Partial<BulkOptions>][] } {
  const groups = [{ Id: 'OLD' }, { Id: 'NEW' }];
  const first = range(1, 1_200).map((p) => article(p, 'OLD', 'alt'));
  // 1,100 of them, 50 renamed, 20 moved to the other group, and 5 new: more than one chunk of
  // lookups, the second asked while batches are written.
  const second = [
    ...first.slice(0, 1_100).map((a, i) => {
      if (i % 22 === 0) return { ...a, Name: [{ lang: 'de', val: `neu ${i}` }] };
      return i % 55 === 1 ? { ...a, GroupId: 'NEW' } : a;
    }),
    ...range(2_001, 2_005).map((p) => article(p, 'NEW', 'neu')),
  ];
  const steps: [unknown, Partial<BulkOptions>][] = [
    [{ Groups: groups, Articles: first }, {}],
    [{ Groups: groups, Articles: second }, {}],
    [{ Groups: groups, Articles: second }, {}],
    // A stored article sent twice byte for byte: listed twice.
    [{ Articles: [first[4], first[6], first[4]] }, { changedArticlesOnly: true }],
    // Stored articles whose group the upload removes.
    [{ Groups: [{ Id: 'NEW' }], Articles: second.slice(0, 10) }, {}],
    [
      { Articles: [first[3], article('004', 'OLD', 'neu'), article('3000', 'NEW', 'neu')] },
      { changedArticlesOnly: true },
    ],
  ];
  return { first, steps };
}
