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
import { writeSortiment } from './sortiment.store.js';

/**
 * Bulk upload (CONTRACT, "Sortiments"): `{Groups, Articles}`; changedArticlesOnly=false makes the
 * body the whole sortiment, true upserts only. All or nothing: every invalid item is listed and
 * nothing changes. Unchanged articles (same content hash) are counted but not rewritten.
 *
 * Reading and hashing happen before the transaction. The transaction locks the sortiment against
 * other writers, compares with the stored hashes and writes only the difference, in multi-row
 * statements fed by one JSON parameter each (few parameters, few round trips).
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
  /** Rows per write statement. */
  batchSize?: number;
  /** Progress notes (logs; the crash test waits for "writing"). */
  onPhase?: (phase: 'validated' | 'writing' | 'committed', detail: Record<string, number>) => void;
}

interface PreparedArticle {
  groupId: string | null;
  text: string;
  hash: string;
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

const YIELD_EVERY = 1_000;

export async function bulkUpload(
  db: Kysely<DB>,
  merchantId: number,
  sortimentId: number,
  source: BulkSource,
  options: BulkOptions,
): Promise<BulkCounts> {
  const itemErrors: BulkItemErrorOut[] = [];

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
    articles.set(article.PLU, { groupId: article.GroupId, text, hash });
  }
  options.onPhase?.('validated', { articles: articles.size, errors: itemErrors.length });

  const counts = await writeSortiment(db, merchantId, sortimentId, async (trx) => {
    const storedGroups = await trx
      .selectFrom('sortiment_groups')
      .select(['id', 'name', 'up_group_id'])
      .where('sortiment_id', '=', sortimentId)
      .execute();
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
            itemError('', { error: 'invalidBody', detail: `Group ${g.Id}: UpGroupId makes a cycle.` }),
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
    if (itemErrors.length > 0) {
      throw new AppError('invalidBody', `${itemErrors.length} invalid item(s); nothing was changed.`, {
        extra: { Errors: itemErrors },
      });
    }

    const stored = await sql<{ plu: string; content_hash: string }>`
      SELECT plu, content_hash FROM sortiment_articles WHERE sortiment_id = ${sortimentId}`.execute(trx);
    const counts: BulkCounts = { Created: 0, Updated: 0, Deleted: 0, Unchanged: 0 };
    const storedHashes = new Map<string, string>();
    for (const r of stored.rows) storedHashes.set(r.plu, r.content_hash);
    const toWrite: string[] = [];
    for (const [plu, a] of articles) {
      const before = storedHashes.get(plu);
      if (before === a.hash) {
        counts.Unchanged += 1;
        continue;
      }
      if (before === undefined) counts.Created += 1;
      else counts.Updated += 1;
      toWrite.push(
        `{"plu":${JSON.stringify(plu)},"group_id":${JSON.stringify(a.groupId)},"hash":"${a.hash}","body":${a.text}}`,
      );
    }
    const toDelete: string[] = [];
    if (!options.changedArticlesOnly) {
      for (const plu of storedHashes.keys()) if (!articles.has(plu)) toDelete.push(plu);
      counts.Deleted = toDelete.length;
    }
    articles.clear();

    const groupsChanged = await writeGroups(
      trx,
      merchantId,
      sortimentId,
      storedGroups,
      bodyGroups,
      replaceGroups,
    );
    options.onPhase?.('writing', { write: toWrite.length, delete: toDelete.length });
    const batchSize = options.batchSize ?? 2_000;
    for (let i = 0; i < toWrite.length; i += batchSize) {
      // PGlite runs a statement synchronously: give the event loop a turn between batches (logs,
      // new connections), as the reading above does.
      await new Promise((resolve) => setImmediate(resolve));
      const json = `[${toWrite.slice(i, i + batchSize).join(',')}]`;
      await sql`
        INSERT INTO sortiment_articles (merchant_id, sortiment_id, plu, group_id, body, content_hash)
        SELECT ${merchantId}::bigint, ${sortimentId}::bigint, r.plu, r.group_id, r.body, r.hash
        FROM json_to_recordset(${json}::json) AS r(plu text, group_id text, body jsonb, hash text)
        ON CONFLICT (sortiment_id, plu) DO UPDATE
          SET group_id = excluded.group_id, body = excluded.body, content_hash = excluded.content_hash`.execute(
        trx,
      );
    }
    for (let i = 0; i < toDelete.length; i += batchSize * 5) {
      const json = JSON.stringify(toDelete.slice(i, i + batchSize * 5));
      await sql`
        DELETE FROM sortiment_articles
        WHERE sortiment_id = ${sortimentId} AND plu IN (SELECT json_array_elements_text(${json}::json))`.execute(
        trx,
      );
    }
    if (replaceGroups) {
      const keep = JSON.stringify([...bodyGroups.keys()]);
      await sql`
        DELETE FROM sortiment_groups
        WHERE sortiment_id = ${sortimentId} AND id NOT IN (SELECT json_array_elements_text(${keep}::json))`.execute(
        trx,
      );
    }
    const changed = groupsChanged || toWrite.length > 0 || toDelete.length > 0;
    return { result: counts, changed };
  });
  options.onPhase?.('committed', { ...counts });
  return counts;
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
