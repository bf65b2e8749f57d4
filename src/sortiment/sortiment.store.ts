import { type Kysely, type Transaction, sql } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { type GroupInput, type StoredArticle, canonical } from './article.js';
import { type Turn, liveAt, releaseTurn, takeTurn } from './generations.store.js';

/**
 * Sortiments, their groups and their articles. Every single write runs in one transaction that
 * first locks the sortiment row (FOR NO KEY UPDATE: writers of one sortiment take turns, while
 * readers and terminals referring to the sortiment are not blocked) and ends by raising the
 * sortiment's version, which is the ETag of the digital-menu reads. While a bulk upload holds the
 * sortiment's turn (generations.store.ts), a single write waits for its turn.
 *
 * A writer holding the sortiment has no generation pending, so the live rows are the open ones
 * (to_gen IS NULL); readers, who may come while a generation is pending, use `liveAt`.
 */

export interface SortimentRow {
  id: number;
  thirdPartyIdentifier: string;
  name: string | null;
  version: number;
}

/** The sortiment id of a path (docs/decisions.md, "Foundation"): the decimal text of the numeric id. */
export function parseSortimentId(text: string): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * The merchant's sortiment with this identifier, made on first call. ON CONFLICT makes two
 * concurrent first calls agree on one row. A later call with another non-empty name renames it.
 */
export async function lookupSortiment(
  db: Kysely<DB>,
  merchantId: number,
  thirdPartyIdentifier: string,
  name: string | null,
): Promise<SortimentRow> {
  const inserted = await db
    .insertInto('sortiments')
    .values({ merchant_id: merchantId, third_party_identifier: thirdPartyIdentifier, name })
    .onConflict((oc) =>
      oc
        .columns(['merchant_id', 'third_party_identifier'])
        .doUpdateSet({ name: sql<string>`excluded.name` })
        .where(sql<boolean>`excluded.name IS NOT NULL AND sortiments.name IS DISTINCT FROM excluded.name`),
    )
    .returning(['id', 'third_party_identifier', 'name', 'version'])
    .executeTakeFirst();
  const row =
    inserted ??
    (await db
      .selectFrom('sortiments')
      .select(['id', 'third_party_identifier', 'name', 'version'])
      .where('merchant_id', '=', merchantId)
      .where('third_party_identifier', '=', thirdPartyIdentifier)
      .executeTakeFirstOrThrow());
  return {
    id: row.id,
    thirdPartyIdentifier: row.third_party_identifier,
    name: row.name,
    version: row.version,
  };
}

/**
 * The sortiment of the path; another merchant's answers exactly like an unknown one (12001).
 * `currentGen` is the generation of articles readers of the same snapshot see.
 */
export async function findSortiment(
  db: Kysely<DB>,
  merchantId: number,
  idText: string,
): Promise<{ id: number; version: number; currentGen: number }> {
  const id = parseSortimentId(idText);
  if (id === null) throw new AppError('sortimentUnknown');
  const row = await db
    .selectFrom('sortiments')
    .select(['id', 'version', 'current_gen'])
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AppError('sortimentUnknown');
  return { id: row.id, version: row.version, currentGen: row.current_gen };
}

/**
 * Runs `work` with the sortiment locked against other writers, then raises its version. `work`
 * gets the current generation, which single writes write into directly. While another writer
 * holds the sortiment's turn (a bulk upload), this waits for the turn and holds it for `work`.
 */
export async function writeSortiment<T>(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  work: (trx: Transaction<DB>, currentGen: number) => Promise<{ result: T; changed: boolean }>,
): Promise<T> {
  let turn: Turn | null = null;
  try {
    for (;;) {
      const held = turn?.token ?? null;
      const outcome = await db.transaction().execute(async (trx) => {
        const locked = await sql<{ current_gen: number; owner: string | null }>`
          SELECT current_gen, pending_owner AS owner FROM sortiments
          WHERE id = ${sortimentId} AND merchant_id = ${merchantId}
          FOR NO KEY UPDATE`.execute(trx);
        const row = locked.rows[0];
        if (!row) throw new AppError('sortimentUnknown');
        if (row.owner !== null && row.owner !== held) return { done: false } as const;
        const { result, changed } = await work(trx, row.current_gen);
        if (changed) {
          await trx
            .updateTable('sortiments')
            .set({ version: sql<number>`version + 1` })
            .where('id', '=', sortimentId)
            .execute();
        }
        return { done: true, result } as const;
      });
      if (outcome.done) return outcome.result;
      turn = await takeTurn(db, merchantId, sortimentId);
    }
  } finally {
    if (turn) await releaseTurn(db, turn);
  }
}

async function groupExists(trx: Transaction<DB>, sortimentId: number, id: string): Promise<boolean> {
  const row = await trx
    .selectFrom('sortiment_groups')
    .select('id')
    .where('sortiment_id', '=', sortimentId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** True when making `upGroupId` the parent of `id` would close a cycle. */
async function wouldCycle(
  trx: Transaction<DB>,
  sortimentId: number,
  id: string,
  upGroupId: string,
): Promise<boolean> {
  const result = await sql<{ id: string }>`
    WITH RECURSIVE up(id, depth) AS (
      SELECT up_group_id, 1 FROM sortiment_groups WHERE sortiment_id = ${sortimentId} AND id = ${upGroupId}
      UNION ALL
      SELECT g.up_group_id, up.depth + 1 FROM up
        JOIN sortiment_groups g ON g.sortiment_id = ${sortimentId} AND g.id = up.id
      WHERE up.depth < 10000
    )
    SELECT id FROM up WHERE id = ${id} LIMIT 1`.execute(trx);
  return result.rows.length > 0;
}

export async function createGroup(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  group: GroupInput,
): Promise<void> {
  await writeSortiment(db, merchantId, sortimentId, async (trx) => {
    if (await groupExists(trx, sortimentId, group.Id)) throw new AppError('groupExists');
    if (group.UpGroupId !== null && !(await groupExists(trx, sortimentId, group.UpGroupId))) {
      throw new AppError('upGroupUnknown');
    }
    await trx
      .insertInto('sortiment_groups')
      .values({
        merchant_id: merchantId,
        sortiment_id: sortimentId,
        id: group.Id,
        name: JSON.stringify(group.Name),
        up_group_id: group.UpGroupId,
      })
      .execute();
    return { result: undefined, changed: true };
  });
}

export async function updateGroup(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  group: GroupInput,
): Promise<void> {
  await writeSortiment(db, merchantId, sortimentId, async (trx) => {
    if (!(await groupExists(trx, sortimentId, group.Id))) throw new AppError('groupUnknown');
    if (group.UpGroupId !== null) {
      if (!(await groupExists(trx, sortimentId, group.UpGroupId))) throw new AppError('upGroupUnknown');
      if (await wouldCycle(trx, sortimentId, group.Id, group.UpGroupId)) {
        throw new AppError(
          'refused',
          `UpGroupId ${group.UpGroupId} lies below group ${group.Id}: no cycles.`,
        );
      }
    }
    await trx
      .updateTable('sortiment_groups')
      .set({ name: JSON.stringify(group.Name), up_group_id: group.UpGroupId })
      .where('sortiment_id', '=', sortimentId)
      .where('id', '=', group.Id)
      .execute();
    return { result: undefined, changed: true };
  });
}

export async function deleteGroup(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  id: string,
): Promise<void> {
  await writeSortiment(db, merchantId, sortimentId, async (trx) => {
    if (!(await groupExists(trx, sortimentId, id))) throw new AppError('groupUnknown');
    const used = await sql<{ one: number }>`
      SELECT 1 AS one FROM sortiment_articles
      WHERE sortiment_id = ${sortimentId} AND group_id = ${id} AND to_gen IS NULL
      UNION ALL
      SELECT 1 FROM sortiment_groups WHERE sortiment_id = ${sortimentId} AND up_group_id = ${id}
      LIMIT 1`.execute(trx);
    if (used.rows.length > 0) throw new AppError('groupNotEmpty');
    await trx
      .deleteFrom('sortiment_groups')
      .where('sortiment_id', '=', sortimentId)
      .where('id', '=', id)
      .execute();
    return { result: undefined, changed: true };
  });
}

async function storedGroupOf(
  trx: Transaction<DB>,
  sortimentId: number,
  plu: string,
): Promise<{ group_id: string | null } | undefined> {
  return trx
    .selectFrom('sortiment_articles')
    .select('group_id')
    .where('sortiment_id', '=', sortimentId)
    .where('plu', '=', plu)
    .where('to_gen', 'is', null)
    .executeTakeFirst();
}

export async function createArticle(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  article: StoredArticle,
): Promise<void> {
  await writeSortiment(db, merchantId, sortimentId, async (trx, currentGen) => {
    if (article.GroupId !== null && !(await groupExists(trx, sortimentId, article.GroupId))) {
      throw new AppError('upGroupUnknown', `No group ${article.GroupId}.`);
    }
    const { text, hash } = canonical(article);
    const inserted = await trx
      .insertInto('sortiment_articles')
      .values({
        merchant_id: merchantId,
        sortiment_id: sortimentId,
        plu: article.PLU,
        group_id: article.GroupId,
        body: text,
        content_hash: hash,
        from_gen: currentGen,
      })
      .onConflict((oc) => oc.columns(['sortiment_id', 'plu']).where('to_gen', 'is', null).doNothing())
      .returning('plu')
      .executeTakeFirst();
    // The PLU is the only identity inside a sortiment, whatever group the other one is in.
    if (!inserted) throw new AppError('articleExists');
    return { result: undefined, changed: true };
  });
}

/**
 * Replaces an article (docs/decisions.md, "Sortiment"): GroupId cannot change. A groupId (query)
 * or GroupId (body) naming another group than the stored article's answers 12007, whose text
 * tells the till to delete and create again; 12006 ("use create instead") is only for a PLU the
 * sortiment does not hold, so a till that follows the error texts never loops between create
 * (12009) and update. An update without GroupId keeps the group.
 */
export async function updateArticle(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  article: StoredArticle,
  queryGroupId: string | null,
): Promise<void> {
  await writeSortiment(db, merchantId, sortimentId, async (trx) => {
    const stored = await storedGroupOf(trx, sortimentId, article.PLU);
    if (!stored) throw new AppError('articleUnknown');
    const next: StoredArticle = { ...article, GroupId: article.GroupId ?? queryGroupId ?? stored.group_id };
    if (next.GroupId !== stored.group_id) {
      const where = stored.group_id === null ? 'in no group' : `in group ${stored.group_id}`;
      throw new AppError('groupIdChanged', `Article ${next.PLU} is ${where}.`);
    }
    const { text, hash } = canonical(next);
    const updated = await trx
      .updateTable('sortiment_articles')
      // The bytes a bulk upload sent for it no longer describe it.
      .set({ body: text, content_hash: hash, raw_hash: null })
      .where('sortiment_id', '=', sortimentId)
      .where('plu', '=', next.PLU)
      .where('to_gen', 'is', null)
      .where('content_hash', '<>', hash)
      .executeTakeFirst();
    return { result: undefined, changed: updated.numUpdatedRows > 0n };
  });
}

export async function deleteArticle(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  plu: string,
  queryGroupId: string | null,
): Promise<void> {
  await writeSortiment(db, merchantId, sortimentId, async (trx) => {
    const stored = await storedGroupOf(trx, sortimentId, plu);
    if (!stored || (queryGroupId !== null && queryGroupId !== stored.group_id)) {
      throw new AppError('articleUnknown');
    }
    await trx
      .deleteFrom('sortiment_articles')
      .where('sortiment_id', '=', sortimentId)
      .where('plu', '=', plu)
      .where('to_gen', 'is', null)
      .execute();
    return { result: undefined, changed: true };
  });
}

/**
 * The sortiment's articles live in generation `gen`, which the caller read with findSortiment in
 * the same (repeatable-read) transaction.
 */
function liveArticles(db: Kysely<DB>, sortimentId: number, gen: number) {
  return db
    .selectFrom('sortiment_articles as a')
    .where('a.sortiment_id', '=', sortimentId)
    .where(liveAt('a', gen));
}

export async function readArticle(
  db: Kysely<DB>,
  sortimentId: number,
  gen: number,
  plu: string,
): Promise<StoredArticle | null> {
  const row = await liveArticles(db, sortimentId, gen)
    .select('a.body')
    .where('a.plu', '=', plu)
    .executeTakeFirst();
  return row ? (row.body as StoredArticle) : null;
}

/** One page of articles in PLU order, with the total count. */
export async function listArticles(
  db: Kysely<DB>,
  sortimentId: number,
  gen: number,
  options: { offset: number; limit: number; groupId: string | null },
): Promise<{ total: number; articles: StoredArticle[] }> {
  let base = liveArticles(db, sortimentId, gen);
  if (options.groupId !== null) base = base.where('a.group_id', '=', options.groupId);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base.select('a.body').orderBy('a.plu').offset(options.offset).limit(options.limit).execute(),
  ]);
  return { total: Number(count.n), articles: rows.map((r) => r.body as StoredArticle) };
}
