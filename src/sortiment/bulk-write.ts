import { type Kysely, type Transaction, sql } from 'kysely';
import { AppError, errors } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import type { GroupInput, ItemError, LocalText } from './article.js';
import { type Turn, inTurn, switchGeneration } from './generations.js';

/**
 * The writing half of a bulk upload (bulk-upload.ts reads and validates): with the sortiment's
 * turn held, the groups are checked against the stored ones, the articles compared with the
 * stored hashes, and the difference written as the next generation, chunk by chunk, before one
 * short transaction switches readers to it (docs/decisions.md, "Sortiment").
 */

export interface BulkCounts {
  Created: number;
  Updated: number;
  Deleted: number;
  Unchanged: number;
}

export interface BulkItemErrorOut {
  PLU: string;
  ErrorId: number;
  ErrorText: string;
}

export interface PreparedArticle {
  groupId: string | null;
  text: string;
  hash: string;
  /** A stored article of this PLU differs: its row is closed when the new one is written. */
  replaces: boolean;
}

export function itemError(plu: string, e: ItemError): BulkItemErrorOut {
  return { PLU: plu, ErrorId: errors[e.error].errorId, ErrorText: `${errors[e.error].text} ${e.detail}` };
}

/** At most this many invalid items are listed in a refused upload; the rest are counted. */
export const BULK_MAX_LISTED_ERRORS = 100;

/**
 * The invalid items of an upload: all are counted, the first BULK_MAX_LISTED_ERRORS are listed
 * (a body of 200,000 broken articles would otherwise answer with a list of them all).
 */
export class ItemErrors {
  readonly listed: BulkItemErrorOut[] = [];
  count = 0;

  push(error: BulkItemErrorOut): void {
    this.count += 1;
    if (this.listed.length < BULK_MAX_LISTED_ERRORS) this.listed.push(error);
  }

  get length(): number {
    return this.count;
  }

  refusal(): AppError {
    const extra: Record<string, unknown> = { Errors: this.listed };
    if (this.count > this.listed.length) extra.ErrorsNotListed = this.count - this.listed.length;
    return new AppError('refused', `${this.count} invalid item(s); nothing was changed.`, { extra });
  }
}

/** Progress notes of an upload (logs; the crash test waits for "progress"). */
export type BulkPhaseListener = (
  phase: 'validated' | 'writing' | 'progress' | 'committed',
  detail: Record<string, number>,
) => void | Promise<void>;

/** A validated upload, ready to be written. */
export interface GenerationPlan {
  readonly bodyGroups: Map<string, GroupInput>;
  readonly articles: Map<string, PreparedArticle>;
  readonly itemErrors: ItemErrors;
  /** A whole sortiment with Groups: the stored groups missing from it go. */
  readonly replaceGroups: boolean;
  /** True upserts only; false deletes the stored articles missing from the body. */
  readonly changedArticlesOnly: boolean;
  /** Rows per write transaction. */
  readonly batchSize: number;
  readonly onPhase?: BulkPhaseListener | undefined;
}

/** Stored hashes read per statement. */
const HASH_PAGE_ROWS = 10_000;

/**
 * Validates the groups against the stored ones, compares the articles with the stored hashes and
 * writes the difference as the turn's generation, chunk by chunk, then switches to it. Holding the
 * turn, nothing else writes the sortiment between these transactions.
 */
export async function writeGeneration(
  db: Kysely<DB>,
  turn: Turn,
  merchantId: number,
  upload: GenerationPlan,
): Promise<BulkCounts> {
  const { bodyGroups, articles, itemErrors, replaceGroups } = upload;
  const sortimentId = turn.sortimentId;
  const storedGroups = await inTurn(db, turn, (trx) =>
    trx
      .selectFrom('sortiment_groups')
      .select(['id', 'name', 'up_group_id'])
      .where('sortiment_id', '=', sortimentId)
      .execute(),
  );
  // The groups the sortiment will have: the body's alone when it replaces them, else both.
  const resulting = new Map<string, string | null>();
  if (!replaceGroups) for (const g of storedGroups) resulting.set(g.id, g.up_group_id);
  for (const g of bodyGroups.values()) resulting.set(g.Id, g.UpGroupId);

  for (const g of bodyGroups.values()) {
    if (g.UpGroupId !== null && !resulting.has(g.UpGroupId)) {
      itemErrors.push(
        itemError('', { error: 'upGroupUnknown', detail: `Group ${g.Id}: no group ${g.UpGroupId}.` }),
      );
      continue;
    }
    const seen = new Set<string>([g.Id]);
    let up = g.UpGroupId;
    while (up !== null && up !== undefined) {
      if (seen.has(up)) {
        itemErrors.push(
          itemError('', { error: 'refused', detail: `Group ${g.Id}: UpGroupId makes a cycle.` }),
        );
        break;
      }
      seen.add(up);
      up = resulting.get(up) ?? null;
    }
  }
  for (const [plu, a] of articles) {
    if (a.groupId !== null && !resulting.has(a.groupId)) {
      itemErrors.push(itemError(plu, { error: 'upGroupUnknown', detail: `No group ${a.groupId}.` }));
    }
  }
  if (itemErrors.length > 0) throw itemErrors.refusal();

  // The stored hashes, page by page in PLU order: unchanged articles leave the map, replaced ones
  // are flagged, stored ones missing from a full body are to be deleted.
  const counts: BulkCounts = { Created: 0, Updated: 0, Deleted: 0, Unchanged: 0 };
  const toDelete: string[] = [];
  for (let after = ''; ;) {
    const from = after;
    const page = await inTurn(db, turn, (trx) =>
      trx
        .selectFrom('sortiment_articles')
        .select(['plu', 'content_hash'])
        .where('sortiment_id', '=', sortimentId)
        .where('to_gen', 'is', null)
        .where('plu', '>', from)
        .orderBy('plu')
        .limit(HASH_PAGE_ROWS)
        .execute(),
    );
    for (const r of page) {
      const a = articles.get(r.plu);
      if (a === undefined) {
        if (!upload.changedArticlesOnly) toDelete.push(r.plu);
      } else if (a.hash === r.content_hash) {
        counts.Unchanged += 1;
        articles.delete(r.plu);
      } else {
        counts.Updated += 1;
        a.replaces = true;
      }
    }
    const last = page[page.length - 1];
    if (page.length < HASH_PAGE_ROWS || last === undefined) break;
    after = last.plu;
  }
  counts.Created = articles.size - counts.Updated;
  counts.Deleted = toDelete.length;

  await upload.onPhase?.('writing', { write: articles.size, delete: toDelete.length });
  const { batchSize } = upload;
  const written = articles.size;
  let rows: string[] = [];
  let replaced: string[] = [];
  let done = 0;
  const flush = async (): Promise<void> => {
    turn.dirty = true;
    await writeChunk(db, turn, merchantId, `[${rows.join(',')}]`, replaced);
    done += rows.length;
    rows = [];
    replaced = [];
    await upload.onPhase?.('progress', { written: done, of: written });
  };
  // Each article leaves the map once its row text is built: the texts are held once, not twice.
  for (const [plu, a] of articles) {
    rows.push(
      `{"plu":${JSON.stringify(plu)},"group_id":${JSON.stringify(a.groupId)},"hash":"${a.hash}","body":${a.text}}`,
    );
    if (a.replaces) replaced.push(plu);
    articles.delete(plu);
    if (rows.length === batchSize) await flush();
  }
  if (rows.length > 0) await flush();
  for (let i = 0; i < toDelete.length; i += batchSize * 5) {
    const json = JSON.stringify(toDelete.slice(i, i + batchSize * 5));
    turn.dirty = true;
    await inTurn(db, turn, (trx) =>
      sql`
        UPDATE sortiment_articles SET to_gen = ${turn.nextGen}::bigint
        WHERE sortiment_id = ${sortimentId} AND to_gen IS NULL
          AND plu IN (SELECT json_array_elements_text(${json}::json))`.execute(trx),
    );
  }

  await switchGeneration(db, turn, async (trx) => {
    const groupsChanged = await writeGroups(
      trx,
      merchantId,
      sortimentId,
      storedGroups,
      bodyGroups,
      replaceGroups,
    );
    if (replaceGroups) {
      const keep = JSON.stringify([...bodyGroups.keys()]);
      await sql`
        DELETE FROM sortiment_groups
        WHERE sortiment_id = ${sortimentId} AND id NOT IN (SELECT json_array_elements_text(${keep}::json))`.execute(
        trx,
      );
    }
    return groupsChanged || written > 0 || toDelete.length > 0;
  });
  return counts;
}

/**
 * One chunk of the new generation in one short transaction: the rows it replaces are closed at the
 * turn's generation, then the new rows are inserted from it (one JSON parameter per statement).
 */
async function writeChunk(
  db: Kysely<DB>,
  turn: Turn,
  merchantId: number,
  json: string,
  replaced: readonly string[],
): Promise<void> {
  const { sortimentId, nextGen } = turn;
  await inTurn(db, turn, async (trx) => {
    if (replaced.length > 0) {
      await sql`
        UPDATE sortiment_articles SET to_gen = ${nextGen}::bigint
        WHERE sortiment_id = ${sortimentId} AND to_gen IS NULL
          AND plu IN (SELECT json_array_elements_text(${JSON.stringify(replaced)}::json))`.execute(trx);
    }
    await sql`
      INSERT INTO sortiment_articles (merchant_id, sortiment_id, plu, group_id, body, content_hash, from_gen)
      SELECT ${merchantId}::bigint, ${sortimentId}::bigint, r.plu, r.group_id, r.body, r.hash, ${nextGen}::bigint
      FROM json_to_recordset(${json}::json) AS r(plu text, group_id text, body jsonb, hash text)`.execute(
      trx,
    );
  });
}

function sameTexts(a: readonly LocalText[], b: readonly LocalText[]): boolean {
  // Field by field: jsonb gives the keys back in its own order.
  return a.length === b.length && a.every((t, i) => t.lang === b[i]?.lang && t.val === b[i]?.val);
}

/** Creates or updates the body's groups that differ from the stored ones; true when any did. */
async function writeGroups(
  trx: Transaction<DB>,
  merchantId: number,
  sortimentId: number,
  storedGroups: readonly { id: string; name: LocalText[]; up_group_id: string | null }[],
  bodyGroups: ReadonlyMap<string, GroupInput>,
  replaceGroups: boolean,
): Promise<boolean> {
  const byId = new Map(storedGroups.map((g) => [g.id, g]));
  const changed = [...bodyGroups.values()].filter((g) => {
    const s = byId.get(g.Id);
    return !s || s.up_group_id !== g.UpGroupId || !sameTexts(s.name, g.Name);
  });
  if (changed.length > 0) {
    const json = JSON.stringify(changed.map((g) => ({ id: g.Id, name: g.Name, up: g.UpGroupId })));
    await sql`
      INSERT INTO sortiment_groups (merchant_id, sortiment_id, id, name, up_group_id)
      SELECT ${merchantId}::bigint, ${sortimentId}::bigint, r.id, r.name, r.up
      FROM json_to_recordset(${json}::json) AS r(id text, name jsonb, up text)
      ON CONFLICT (sortiment_id, id) DO UPDATE SET name = excluded.name, up_group_id = excluded.up_group_id`.execute(
      trx,
    );
  }
  const removed = replaceGroups && storedGroups.some((g) => !bodyGroups.has(g.id));
  return changed.length > 0 || removed;
}
