import { type Kysely, type Transaction, sql } from 'kysely';
import { AppError, errors } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import {
  type GroupInput,
  type ItemError,
  type LocalText,
  canonical,
  parseArticle,
  parseGroup,
  readKey,
} from './article.js';
import {
  type Turn,
  inTurn,
  releaseTurn,
  removeClosedRows,
  switchGeneration,
  takeTurn,
} from './generations.js';

/**
 * Bulk upload (docs/decisions.md, "Sortiments"): `{Groups, Articles}`; changedArticlesOnly=false makes the
 * body the whole sortiment, true upserts only. All or nothing: every invalid item is listed and
 * nothing changes. Unchanged articles (same content hash) are counted but not rewritten.
 *
 * Reading, hashing and validating the items happen before any write. Then the upload takes the
 * sortiment's turn (generations.ts: other writers wait), compares with the stored hashes and writes
 * only the difference as the next generation, in short transactions of a few thousand rows fed by
 * one JSON parameter each; other requests' queries run between them. One last short transaction
 * switches readers from the old generation to the new one, so they see either all of the old
 * sortiment or all of the new one, also when the server dies midway.
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

export interface BulkOptions {
  changedArticlesOnly: boolean;
  /** The merchant's currency, for prices without CurrencyIso. */
  currency: string;
  /** Brings one raw item into the documents' field names (case-insensitive, XML shapes). */
  normaliseArticle: (raw: unknown) => unknown;
  normaliseGroup: (raw: unknown) => unknown;
  /** Rows per write transaction (1,000 unless given). */
  batchSize?: number;
  /**
   * Progress notes (logs; the crash test waits for "progress"). Awaited: "progress" comes between
   * two chunk transactions, while the new generation is not yet visible.
   */
  onPhase?: (
    phase: 'validated' | 'writing' | 'progress' | 'committed',
    detail: Record<string, number>,
  ) => void | Promise<void>;
}

interface PreparedArticle {
  groupId: string | null;
  text: string;
  hash: string;
  /** A stored article of this PLU differs: its row is closed when the new one is written. */
  replaces: boolean;
}

function itemError(plu: string, e: ItemError): BulkItemErrorOut {
  return { PLU: plu, ErrorId: errors[e.error].errorId, ErrorText: `${errors[e.error].text} ${e.detail}` };
}

/** The PLU of a raw item for the error list, when one can be read. */
function pluOf(item: unknown): string {
  if (typeof item !== 'object' || item === null) return '';
  try {
    const key = Object.keys(item).find((k) => k.toLowerCase() === 'plu');
    return key === undefined ? '' : (readKey((item as Record<string, unknown>)[key], 'PLU', 1_000) ?? '');
  } catch {
    return '';
  }
}

/**
 * The items of a bulk upload body, read one at a time: from a JSON text scanned without building
 * its whole tree, or from a parsed document (XML).
 */
export interface BulkSource {
  /** The groups, or undefined when the body has no Groups field. */
  readonly groups: readonly unknown[] | undefined;
  readonly articleCount: number;
  /** Raw article `i`; each is asked for once, in order. */
  article(i: number): unknown;
}

/** A source over parsed arrays; each item is let go once read. */
export function arraySource(body: {
  Groups?: unknown[] | undefined;
  Articles?: unknown[] | undefined;
}): BulkSource {
  const list = body.Articles ?? [];
  return {
    groups: body.Groups,
    articleCount: list.length,
    article: (i) => {
      const item = list[i];
      list[i] = null;
      return item;
    },
  };
}

/** At most this many articles in one upload (twice the largest sortiment measured). */
export const BULK_MAX_ARTICLES = 200_000;

/** At most this many invalid items are listed in a refused upload; the rest are counted. */
export const BULK_MAX_LISTED_ERRORS = 100;

/**
 * The invalid items of an upload: all are counted, the first BULK_MAX_LISTED_ERRORS are listed
 * (a body of 200,000 broken articles would otherwise answer with a list of them all).
 */
class ItemErrors {
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

const YIELD_EVERY = 1_000;
/** Stored hashes read per statement. */
const HASH_PAGE_ROWS = 10_000;

export async function bulkUpload(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  source: BulkSource,
  options: BulkOptions,
): Promise<BulkCounts> {
  if (source.articleCount > BULK_MAX_ARTICLES) {
    throw new AppError('tooManyArticles', `At most ${BULK_MAX_ARTICLES} articles.`);
  }
  const itemErrors = new ItemErrors();

  const bodyGroups = new Map<string, GroupInput>();
  for (const raw of source.groups ?? []) {
    const parsed = parseGroup(options.normaliseGroup(raw), null);
    if (!parsed.ok) {
      itemErrors.push(itemError('', { error: parsed.error.error, detail: `Group: ${parsed.error.detail}` }));
    } else if (bodyGroups.has(parsed.value.Id)) {
      itemErrors.push(
        itemError('', { error: 'groupExists', detail: `Group ${parsed.value.Id} is listed twice.` }),
      );
    } else {
      bodyGroups.set(parsed.value.Id, parsed.value);
    }
  }

  const articles = new Map<string, PreparedArticle>();
  for (let i = 0; i < source.articleCount; i++) {
    // Reading is CPU work on the one event loop: let other requests (baskets) in between.
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
    const raw = options.normaliseArticle(source.article(i));
    const parsed = parseArticle(raw, options.currency);
    if (!parsed.ok) {
      itemErrors.push(itemError(pluOf(raw), parsed.error));
      continue;
    }
    const article = parsed.value;
    if (articles.has(article.PLU)) {
      itemErrors.push(itemError(article.PLU, { error: 'articleExists', detail: 'The PLU is listed twice.' }));
      continue;
    }
    const { text, hash } = canonical(article);
    articles.set(article.PLU, { groupId: article.GroupId, text, hash, replaces: false });
  }
  await options.onPhase?.('validated', { articles: articles.size, errors: itemErrors.length });

  const turn = await takeTurn(db, merchantId, sortimentId);
  let counts: BulkCounts;
  try {
    counts = await writeGeneration(db, turn, merchantId, {
      bodyGroups,
      articles,
      itemErrors,
      source,
      options,
    });
  } catch (err) {
    // Best effort: when this fails too, the lease runs out and the next writer cleans up.
    await releaseTurn(db, turn).catch(() => undefined);
    throw err;
  }
  await options.onPhase?.('committed', { ...counts });
  // The upload is done whatever happens here: rows left now are invisible, and every later upload
  // removes all rows closed up to its generation.
  await removeClosedRows(db, sortimentId, turn.nextGen).catch(() => undefined);
  return counts;
}

/**
 * Validates the groups against the stored ones, compares the articles with the stored hashes and
 * writes the difference as the turn's generation, chunk by chunk, then switches to it. Holding the
 * turn, nothing else writes the sortiment between these transactions.
 */
async function writeGeneration(
  db: Kysely<DB>,
  turn: Turn,
  merchantId: number,
  upload: {
    bodyGroups: Map<string, GroupInput>;
    articles: Map<string, PreparedArticle>;
    itemErrors: ItemErrors;
    source: BulkSource;
    options: BulkOptions;
  },
): Promise<BulkCounts> {
  const { bodyGroups, articles, itemErrors, source, options } = upload;
  const sortimentId = turn.sortimentId;
  const storedGroups = await inTurn(db, turn, (trx) =>
    trx
      .selectFrom('sortiment_groups')
      .select(['id', 'name', 'up_group_id'])
      .where('sortiment_id', '=', sortimentId)
      .execute(),
  );
  const replaceGroups = !options.changedArticlesOnly && source.groups !== undefined;
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
        if (!options.changedArticlesOnly) toDelete.push(r.plu);
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

  await options.onPhase?.('writing', { write: articles.size, delete: toDelete.length });
  const batchSize = options.batchSize ?? 1_000;
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
    await options.onPhase?.('progress', { written: done, of: written });
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
