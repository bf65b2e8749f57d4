import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely, Transaction } from 'kysely';
import { AppError, errors } from '../shared/errors.js';
import { copyJsonField } from '../store/copy-in.js';
import type { DB } from '../store/schema.js';
import type { GroupInput, ItemError, LocalText } from './article.js';
import type { BatchTexts, TextPlace } from './batch-texts.js';
import { BatchWrites } from './batch-writes.js';
import {
  closeOpenArticles,
  copyArticleRows,
  deleteGroupsOtherThan,
  openPlusAfter,
  readStoredGroups,
  storedHashes,
  upsertGroups,
} from './bulk-write.store.js';
import { type Turn, inTurn, switchGeneration } from './generations.store.js';
import { RawLookups, storedRawLookup } from './raw-lookups.js';

/**
 * The writing half of a bulk upload (docs/decisions.md, "Sortiment"; bulk-upload.ts reads and
 * validates): with the sortiment's turn held, the groups are checked against the stored ones, the
 * articles compared with the stored hashes, and the difference written as the next generation,
 * chunk by chunk, before one short transaction switches readers to it.
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
  phase: 'validated' | 'progress' | 'committed',
  detail: Record<string, number>,
) => void | Promise<void>;

/** An article read, checked and ready to be written. */
export interface PreparedArticle {
  readonly plu: string;
  readonly groupId: string | null;
  /** The stored body (canonical JSON) and its hash. */
  readonly text: string;
  readonly hash: string;
}

/** An article of the batch being gathered: its body is in the batch's texts. */
interface BatchArticle {
  readonly plu: string;
  readonly groupId: string | null;
  readonly hash: string;
  /** The hash of its bytes as sent, when the source has them. */
  readonly rawHash: string | null;
  readonly text: TextPlace;
}

/**
 * The articles of an upload, read one at a time: each is a valid article, or `null` for an item
 * that was invalid (listed in the item errors by the reader).
 */
export interface ArticleReader {
  readonly count: number;
  /** Reads item `i` (each once, in order). */
  read(i: number): PreparedArticle | null;
  /**
   * For sources that keep each item's bytes: their hash, and `skip` to let an item go unread
   * instead of reading it (one found unchanged by that hash).
   */
  readonly raw?: { hash(i: number): string; skip(i: number): void } | undefined;
}

/** A read upload, ready to be written. */
export interface GenerationPlan {
  readonly bodyGroups: Map<string, GroupInput>;
  readonly articles: ArticleReader;
  readonly itemErrors: ItemErrors;
  /** A whole sortiment with Groups: the stored groups missing from it go. */
  readonly replaceGroups: boolean;
  /** True upserts only; false deletes the stored articles missing from the body. */
  readonly changedArticlesOnly: boolean;
  /** Articles read per write transaction. */
  readonly batchSize: number;
  /** Items from which all stored raw hashes are read at once (raw-lookups.ts; tests set it). */
  readonly readAllRawFrom?: number | undefined;
  readonly onPhase?: BulkPhaseListener | undefined;
}

/** Stored PLUs read per statement when looking for the articles a whole sortiment deletes. */
const STORED_PAGE_ROWS = 10_000;
/** Articles read between two turns of the event loop (other requests' queries run between). */
const YIELD_EVERY = 100;
/** Items whose raw hashes are made, and looked up, at a time. */
const RAW_LOOKUP_ROWS = 1_000;

/** The groups the sortiment will have after the upload; checks the body's groups against them. */
function resultingGroups(
  storedGroups: readonly { id: string; up_group_id: string | null }[],
  upload: GenerationPlan,
): Map<string, string | null> {
  const { bodyGroups, itemErrors } = upload;
  // The body's groups alone when it replaces them, else both.
  const resulting = new Map<string, string | null>();
  if (!upload.replaceGroups) for (const g of storedGroups) resulting.set(g.id, g.up_group_id);
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
  return resulting;
}

/**
 * Reads the articles and writes them as the turn's generation (docs/decisions.md, "Sortiment"):
 * every `batchSize` valid articles are compared with the stored hashes and the changed ones
 * written in one short transaction while the next batch is read, so that an upload holds two
 * batches of articles, not all of them. Once an item is invalid nothing more is written, the rest is only checked, and the
 * refusal discards what was written (the caller releases the turn).
 * Then the stored articles missing from a whole sortiment are closed, and one transaction
 * switches readers to the new generation. Holding the turn, nothing else writes the sortiment.
 */
export async function writeGeneration(
  db: Kysely<DB>,
  turn: Turn,
  merchantId: number,
  upload: GenerationPlan,
): Promise<BulkCounts> {
  const { bodyGroups, itemErrors, replaceGroups, articles } = upload;
  const sortimentId = turn.sortimentId;
  // With no article stored, none is looked up: every article of the body is new.
  const { storedGroups, anyStored } = await inTurn(db, turn, async (trx) => ({
    storedGroups: await readStoredGroups(trx, sortimentId),
    anyStored: (await openPlusAfter(trx, sortimentId, turn.currentGen, '', 1)).length > 0,
  }));
  const resulting = resultingGroups(storedGroups, upload);

  const counts: BulkCounts = { Created: 0, Updated: 0, Deleted: 0, Unchanged: 0 };
  // Every PLU of the body: a PLU listed twice is an error, and a whole sortiment deletes the others.
  const plus = new Set<string>();
  // A batch holds each body's place in its texts, not the body itself (batch-texts.ts); it is
  // written while the next one is read (batch-writes.ts).
  let written = 0;
  const batches = new BatchWrites<BatchArticle>(upload.batchSize, async (rows, texts) => {
    const n = await writeBatch(db, turn, merchantId, { rows, texts, anyStored }, counts);
    if (n === 0) return;
    written += n;
    await upload.onPhase?.('progress', { written, of: articles.count });
  });
  // The open PLUs when the upload began, if it read all stored rows (raw-lookups.ts).
  let openPlus: readonly string[] | null = null;
  try {
    openPlus = await readArticles(db, turn, upload, { resulting, anyStored }, plus, counts, batches);
    await upload.onPhase?.('validated', { articles: plus.size, errors: itemErrors.length });
    if (itemErrors.length > 0) throw itemErrors.refusal();
    await batches.finish();
  } catch (err) {
    // The caller discards the generation: no batch may still be writing into it.
    await batches.settle();
    throw err;
  }

  // The stored articles a whole sortiment no longer lists: among the open PLUs read when it began
  // (the turn held since, nothing else closed or opened rows of the generation), else page by page.
  if (!upload.changedArticlesOnly && anyStored) {
    const close = async (gone: string[]) => {
      if (gone.length === 0) return;
      turn.dirty = true;
      await inTurn(db, turn, (trx) => closeOpenArticles(trx, sortimentId, turn.nextGen, gone));
      counts.Deleted += gone.length;
    };
    const gone = openPlus?.filter((p) => !plus.has(p)) ?? [];
    for (let i = 0; i < gone.length; i += STORED_PAGE_ROWS) await close(gone.slice(i, i + STORED_PAGE_ROWS));
    for (let after = ''; openPlus === null;) {
      const from = after;
      const page = await inTurn(db, turn, (trx) =>
        openPlusAfter(trx, sortimentId, turn.currentGen, from, STORED_PAGE_ROWS),
      );
      await close(page.filter((r) => !plus.has(r.plu)).map((r) => r.plu));
      const last = page[page.length - 1];
      if (page.length < STORED_PAGE_ROWS || last === undefined) break;
      after = last.plu;
    }
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
    if (replaceGroups) await deleteGroupsOtherThan(trx, sortimentId, [...bodyGroups.keys()]);
    return groupsChanged || written > 0 || counts.Deleted > 0;
  });
  return counts;
}

/**
 * Reads the articles one at a time, checks each, and hands the valid ones that may have changed to
 * `batches`. Items sent byte for byte as the stored article are known by their raw hash (looked up
 * a chunk ahead, or among those of all stored rows read when a large upload begins:
 * raw-lookups.ts), and neither read nor written: their PLU and group come from the stored row.
 * Answers the open PLUs when all stored rows were read, else null.
 */
async function readArticles(
  db: Kysely<DB>,
  turn: Turn,
  upload: GenerationPlan,
  { resulting, anyStored }: { resulting: ReadonlyMap<string, string | null>; anyStored: boolean },
  plus: Set<string>,
  counts: BulkCounts,
  batches: BatchWrites<BatchArticle>,
): Promise<readonly string[] | null> {
  const { articles, itemErrors } = upload;
  const { raw } = articles;
  const storedRows =
    raw !== undefined && anyStored
      ? await storedRawLookup(db, turn, articles.count, upload.readAllRawFrom)
      : null;
  const lookups =
    raw === undefined
      ? null
      : new RawLookups(articles.count, raw.hash, storedRows?.lookup ?? null, RAW_LOOKUP_ROWS);
  for (let i = 0; i < articles.count; i++) {
    if (lookups && i % RAW_LOOKUP_ROWS === 0) await lookups.load(i);
    // Reading is CPU work on the one event loop: let other requests (baskets) in between.
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await nextTurn();
    const rawHash = lookups?.hashOf(i) ?? null;
    const stored = lookups?.storedOf(i);
    if (stored !== undefined) raw?.skip(i);
    const article = stored ? { plu: stored.plu, groupId: stored.group_id } : articles.read(i);
    if (article === null) continue;
    if (plus.has(article.plu)) {
      itemErrors.push(itemError(article.plu, { error: 'articleExists', detail: 'The PLU is listed twice.' }));
      continue;
    }
    plus.add(article.plu);
    if (article.groupId !== null && !resulting.has(article.groupId)) {
      itemErrors.push(
        itemError(article.plu, { error: 'upGroupUnknown', detail: `No group ${article.groupId}.` }),
      );
      continue;
    }
    // Once anything is invalid the upload is refused: the rest is only checked, not written.
    if (itemErrors.length > 0) continue;
    if (!('text' in article)) {
      // Found by its raw hash: the stored article, unchanged.
      counts.Unchanged += 1;
      continue;
    }
    const { plu, groupId, hash } = article;
    // Kept as the COPY data will hold it (batch-texts.ts; bulk-write.store.ts writes the bytes).
    if (batches.put(copyJsonField(article.text), (text) => ({ plu, groupId, hash, rawHash, text }))) {
      await batches.flush();
    }
  }
  return storedRows?.openPlus ?? null;
}

/**
 * One batch of the new generation in one short transaction: the stored hashes of its PLUs are
 * read, unchanged articles only counted, the rows the others replace closed at the turn's
 * generation and the new rows inserted with one COPY. Answers the rows
 * written. A PLU of the batch has no row of the new generation yet (the body lists each once), so
 * its open row is the stored one.
 */
async function writeBatch(
  db: Kysely<DB>,
  turn: Turn,
  merchantId: number,
  { rows: batch, texts, anyStored }: { rows: readonly BatchArticle[]; texts: BatchTexts; anyStored: boolean },
  counts: BulkCounts,
): Promise<number> {
  const { sortimentId, nextGen } = turn;
  return inTurn(db, turn, async (trx) => {
    // Nothing was stored when the upload began: the only open rows are its own, of other PLUs.
    const hashes = anyStored
      ? await storedHashes(
          trx,
          sortimentId,
          batch.map((a) => a.plu),
        )
      : new Map<string, string>();
    const rows: BatchArticle[] = [];
    const replaced: string[] = [];
    for (const a of batch) {
      const hash = hashes.get(a.plu);
      if (hash === a.hash) {
        counts.Unchanged += 1;
        continue;
      }
      if (hash === undefined) counts.Created += 1;
      else {
        counts.Updated += 1;
        replaced.push(a.plu);
      }
      rows.push(a);
    }
    if (rows.length === 0) return 0;
    turn.dirty = true;
    if (replaced.length > 0) await closeOpenArticles(trx, sortimentId, nextGen, replaced);
    await copyArticleRows(trx, merchantId, sortimentId, nextGen, rows, (a) => ({
      plu: a.plu,
      groupId: a.groupId,
      body: texts.bytes(a.text),
      hash: a.hash,
      rawHash: a.rawHash,
    }));
    return rows.length;
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
  if (changed.length > 0) await upsertGroups(trx, merchantId, sortimentId, changed);
  const removed = replaceGroups && storedGroups.some((g) => !bodyGroups.has(g.id));
  return changed.length > 0 || removed;
}
