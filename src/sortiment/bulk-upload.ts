import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { type GroupInput, canonical, parseArticle, parseGroup, readKey } from './article.js';
import {
  type ArticleReader,
  type BulkCounts,
  type BulkPhaseListener,
  ItemErrors,
  itemError,
  writeGeneration,
} from './bulk-write.js';
import { releaseTurn, removeClosedRows, takeTurn } from './generations.store.js';

export { BULK_MAX_LISTED_ERRORS } from './bulk-write.js';

/**
 * Bulk upload (docs/decisions.md, "Sortiment"): `{Groups, Articles}`; changedArticlesOnly=false makes the
 * body the whole sortiment, true upserts only. All or nothing: every invalid item is listed and
 * nothing changes. Unchanged articles (same content hash) are counted but not rewritten.
 *
 * The groups are read first; then the upload takes the sortiment's turn (generations.store.ts: other
 * writers wait) and reads, validates and hashes the articles one at a time, writing every batch of
 * them that differs from the stored hashes as the next generation, in short transactions that
 * write the new rows with COPY (bulk-write.ts), each while the next batch is read; other
 * requests' queries run between them. Two batches of articles and the set of PLUs are held, never
 * the whole list. An invalid item anywhere
 * refuses the upload and discards what it wrote. One last short transaction switches readers from
 * the old generation to the new one, so they see either all of the old sortiment or all of the new
 * one, also when the server dies midway.
 */

export interface BulkOptions {
  changedArticlesOnly: boolean;
  /** The merchant's currency, for prices without CurrencyIso. */
  currency: string;
  /** Brings one raw item into the documents' field names (case-insensitive, XML shapes). */
  normaliseArticle: (raw: unknown) => unknown;
  normaliseGroup: (raw: unknown) => unknown;
  /** Rows per write transaction (1,000 unless given; the service passes BULK_BATCH_SIZE). */
  batchSize?: number;
  /** Items from which all stored raw hashes are read at once (raw-lookups.ts; tests set it). */
  readAllRawFrom?: number;
  /**
   * Progress notes (logs; the crash test waits for "progress"). Awaited: "progress" comes between
   * two chunk transactions, while the new generation is not yet visible.
   */
  onPhase?: BulkPhaseListener;
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
  /**
   * sha256 of article `i`'s bytes as sent, `salt` first (sources that keep the bytes: JSON). An
   * article found by it is not asked for: `skip` lets it go instead.
   */
  rawHash?(i: number, salt: string): string;
  skip?(i: number): void;
}

/**
 * Part of every raw hash: the version of reading an article (raise it when parseArticle, the checks
 * or the canonical form change, so that stored articles are read again once) and the merchant's
 * currency (the default of prices without CurrencyIso).
 */
const RAW_READING_VERSION = 1;

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

/** Reads the articles of `source` one at a time, listing the invalid ones in `itemErrors`. */
function articleReader(source: BulkSource, options: BulkOptions, itemErrors: ItemErrors): ArticleReader {
  const salt = `${RAW_READING_VERSION}:${options.currency}:`;
  const { rawHash, skip } = source;
  return {
    count: source.articleCount,
    raw: rawHash && skip ? { hash: (i) => rawHash(i, salt), skip } : undefined,
    read(i) {
      const raw = options.normaliseArticle(source.article(i));
      const parsed = parseArticle(raw, options.currency);
      if (!parsed.ok) {
        itemErrors.push(itemError(pluOf(raw), parsed.error));
        return null;
      }
      const article = parsed.value;
      // Hashing costs nothing worth sparing for an upload that is refused already.
      const { text, hash } = itemErrors.length > 0 ? { text: '', hash: '' } : canonical(article);
      return { plu: article.PLU, groupId: article.GroupId, text, hash };
    },
  };
}

/** Reads the groups, then reads, validates and writes the articles (bulk-write.ts). */
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

  const turn = await takeTurn(db, merchantId, sortimentId);
  let counts: BulkCounts;
  try {
    counts = await writeGeneration(db, turn, merchantId, {
      bodyGroups,
      articles: articleReader(source, options, itemErrors),
      itemErrors,
      replaceGroups: !options.changedArticlesOnly && source.groups !== undefined,
      changedArticlesOnly: options.changedArticlesOnly,
      batchSize: options.batchSize ?? 1_000,
      readAllRawFrom: options.readAllRawFrom,
      onPhase: options.onPhase,
    });
  } catch (err) {
    // Removes what the upload wrote of its generation. Best effort: when this fails too, the
    // lease runs out and the next writer cleans up.
    await releaseTurn(db, turn).catch(() => undefined);
    throw err;
  }
  await options.onPhase?.('committed', { ...counts });
  // The upload is done whatever happens here: rows left now are invisible, and every later upload
  // removes all rows closed up to its generation.
  await removeClosedRows(db, sortimentId, turn.nextGen).catch(() => undefined);
  return counts;
}
