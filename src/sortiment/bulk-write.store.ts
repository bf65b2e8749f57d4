import { CompiledQuery, type Kysely, type Transaction, sql } from 'kysely';
import { CopyData, copyField } from '../store/copy-in.js';
import type { DB } from '../store/schema.js';
import type { GroupInput, LocalText } from './article.js';

/** The queries of a bulk upload's write (bulk-write.ts), each run in the sortiment's turn. */

/**
 * A list of PLUs as one parameter, for `plu = ANY(...)`: each is then an index lookup. Written as
 * `IN (SELECT ...)` the planner, whose statistics do not yet know the rows the upload writes,
 * chose to read every open row of the sortiment for each batch (a hundred times for 100,000
 * articles).
 */
const plusOf = (plus: readonly string[]) =>
  sql`ARRAY(SELECT json_array_elements_text(${JSON.stringify(plus)}::json))`;

/**
 * Rows per chunk of COPY data (about 80 KB). A chunk is made just before it is sent: larger strings
 * are allocated outside the young generation, and the 1 MB texts of 1,000 rows piled up as garbage
 * until the next full collection (some 80 MB of the peak of a 100,000-article upload;
 * docs/performance.md).
 */
const ROWS_PER_CHUNK = 100;
/** The sortiment's stored groups. */
export function readStoredGroups(
  trx: Transaction<DB>,
  sortimentId: number,
): Promise<{ id: string; name: LocalText[]; up_group_id: string | null }[]> {
  return trx
    .selectFrom('sortiment_groups')
    .select(['id', 'name', 'up_group_id'])
    .where('sortiment_id', '=', sortimentId)
    .execute();
}

/** Up to `limit` PLUs of the articles readers see in generation `gen`, in PLU order after `after`. */
export function openPlusAfter(
  trx: Transaction<DB>,
  sortimentId: number,
  gen: number,
  after: string,
  limit: number,
): Promise<{ plu: string }[]> {
  return trx
    .selectFrom('sortiment_articles')
    .select('plu')
    .where('sortiment_id', '=', sortimentId)
    .where('to_gen', 'is', null)
    .where('from_gen', '<=', gen)
    .where('plu', '>', after)
    .orderBy('plu')
    .limit(limit)
    .execute();
}

/** Closes the open rows of these PLUs at generation `nextGen` (readers of it no longer see them). */
export async function closeOpenArticles(
  trx: Transaction<DB>,
  sortimentId: number,
  nextGen: number,
  plus: readonly string[],
): Promise<void> {
  await sql`
    UPDATE sortiment_articles SET to_gen = ${nextGen}::bigint
    WHERE sortiment_id = ${sortimentId} AND to_gen IS NULL
      AND plu = ANY(${plusOf(plus)})`.execute(trx);
}

/**
 * The content hashes of the open rows of these PLUs (absent: no such article). One index lookup
 * per PLU, whatever the statistics say (LIMIT keeps the planner from flattening it into a scan of
 * the sortiment's open rows, which a table not yet analysed after the upload's first batches made
 * it choose on PostgreSQL 15).
 */
export async function storedHashes(
  trx: Transaction<DB>,
  sortimentId: number,
  plus: readonly string[],
): Promise<Map<string, string>> {
  const stored = await sql<{ plu: string; content_hash: string }>`
    SELECT p.plu, a.content_hash
    FROM json_array_elements_text(${JSON.stringify(plus)}::json) AS p(plu)
    CROSS JOIN LATERAL (
      SELECT content_hash FROM sortiment_articles
      WHERE sortiment_id = ${sortimentId} AND to_gen IS NULL AND plu = p.plu LIMIT 1) a`.execute(trx);
  return new Map(stored.rows.map((r) => [r.plu, r.content_hash]));
}

/** A stored open article found by the raw hash of an item. */
export interface StoredByRaw {
  readonly plu: string;
  readonly group_id: string | null;
}

/** Stored raw hashes read per statement. */
export const RAW_PAGE_ROWS = 10_000;

/**
 * The PLU and group of the open rows of generation `gen` stored with these raw hashes, by raw hash:
 * one index lookup per hash (LIMIT keeps it one, as for `storedHashes`). For an upload of fewer
 * items than the sortiment holds rows (raw-lookups.ts); rows written by the upload itself, of the
 * next generation, are not answered, as `openRows` read before them does not answer them.
 */
export async function openByRawHash(
  db: Kysely<DB>,
  sortimentId: number,
  gen: number,
  rawHashes: readonly string[],
): Promise<Map<string, StoredByRaw>> {
  const stored = await sql<{ raw_hash: string; plu: string; group_id: string | null }>`
    SELECT p.raw_hash, a.plu, a.group_id
    FROM json_array_elements_text(${JSON.stringify(rawHashes)}::json) AS p(raw_hash)
    CROSS JOIN LATERAL (
      SELECT plu, group_id FROM sortiment_articles
      WHERE sortiment_id = ${sortimentId} AND to_gen IS NULL AND raw_hash = p.raw_hash
        AND from_gen <= ${gen}::bigint
      LIMIT 1) a`.execute(db);
  return new Map(stored.rows.map((r) => [r.raw_hash, { plu: r.plu, group_id: r.group_id }]));
}

/** The open rows of a sortiment as `openRows` reads them. */
export interface OpenRows {
  /** The PLU and group of each row stored with a raw hash, by raw hash. */
  readonly byRaw: ReadonlyMap<string, StoredByRaw>;
  /** Every open PLU, those without a raw hash included (a whole sortiment deletes the others). */
  readonly plus: readonly string[];
}

/**
 * Every open row of generation `gen` of the sortiment: the PLU and group of each stored with a raw
 * hash (bytes as sent; migration 0041), by raw hash, and every open PLU; 10,000 rows per statement
 * in PLU order, along the index of open rows: in raw-hash order (the raw-hash index) each row lay
 * on another page of the table, and a page of 10,000 rows read about 10,000 buffers against about
 * 1,900 (PostgreSQL's CPU for the 1% change of 100,000 articles 0.3 s against 0.45 s;
 * docs/performance.md). A lateral index lookup per item, 1,000 per statement, cost PostgreSQL about
 * 0.5 s of CPU for 100,000 articles and the upload a round trip per 1,000; all rows as one JSON
 * text made the embedded database's memory grow by some 40 MiB for good (docs/performance.md,
 * "Sortiment bulk upload"). The open rows of a sortiment have distinct PLUs, and so distinct
 * bytes: a hash names at most one of them.
 */
export async function openRows(db: Kysely<DB>, sortimentId: number, gen: number): Promise<OpenRows> {
  const byRaw = new Map<string, StoredByRaw>();
  const plus: string[] = [];
  for (let after = ''; ;) {
    const { rows } = await sql<{ raw_hash: string | null; plu: string; group_id: string | null }>`
      SELECT raw_hash, plu, group_id FROM sortiment_articles
      WHERE sortiment_id = ${sortimentId} AND to_gen IS NULL AND from_gen <= ${gen}::bigint
        AND plu > ${after}
      ORDER BY plu LIMIT ${RAW_PAGE_ROWS}`.execute(db);
    for (const r of rows) {
      plus.push(r.plu);
      if (r.raw_hash !== null) byRaw.set(r.raw_hash, { plu: r.plu, group_id: r.group_id });
    }
    const last = rows[rows.length - 1];
    if (rows.length < RAW_PAGE_ROWS || last === undefined) return { byRaw, plus };
    after = last.plu;
  }
}

/** An article row as a bulk upload writes it. */
export interface ArticleRow {
  readonly plu: string;
  readonly groupId: string | null;
  /** The canonical JSON body as UTF-8 bytes, already escaped as a COPY field (`copyJsonField`). */
  readonly body: Uint8Array;
  readonly hash: string;
  readonly rawHash: string | null;
}

/**
 * Inserts article rows of generation `nextGen` with COPY (store/copy-in.ts), `row` giving each
 * one's fields, ROWS_PER_CHUNK lines per chunk of data, each chunk made when it is sent: a batch's
 * texts are never all held at once.
 */
export async function copyArticleRows<T>(
  trx: Transaction<DB>,
  merchantId: number,
  sortimentId: number,
  nextGen: number,
  rows: readonly T[],
  row: (item: T) => ArticleRow,
): Promise<void> {
  const fixed = `${merchantId}\t${sortimentId}\t`;
  // A chunk is written as bytes: the bodies are bytes already, and as text they were decoded,
  // searched for characters to escape, joined and encoded again (docs/performance.md).
  function* chunks(): Generator<Buffer> {
    for (let i = 0; i < rows.length; i += ROWS_PER_CHUNK) {
      const lines: { head: string; body: Uint8Array; tail: string }[] = [];
      let most = 0;
      for (const item of rows.slice(i, i + ROWS_PER_CHUNK)) {
        const r = row(item);
        const head = `${fixed}${copyField(r.plu)}\t${copyField(r.groupId)}\t`;
        const tail = `\t${copyField(r.hash)}\t${copyField(r.rawHash)}\t${nextGen}\n`;
        lines.push({ head, body: r.body, tail });
        // A UTF-16 unit of text is at most three bytes of UTF-8.
        most += 3 * (head.length + tail.length) + r.body.length;
      }
      const chunk = Buffer.allocUnsafe(most);
      let at = 0;
      for (const { head, body, tail } of lines) {
        at += chunk.write(head, at, 'utf8');
        chunk.set(body, at);
        at += body.length;
        at += chunk.write(tail, at, 'utf8');
      }
      yield chunk.subarray(0, at);
    }
  }
  await trx.executeQuery(
    CompiledQuery.raw(
      `COPY sortiment_articles
         (merchant_id, sortiment_id, plu, group_id, body, content_hash, raw_hash, from_gen) FROM STDIN`,
      [new CopyData(chunks())],
    ),
  );
}

/** Creates the groups given, or updates their name and parent. */
export async function upsertGroups(
  trx: Transaction<DB>,
  merchantId: number,
  sortimentId: number,
  groups: readonly GroupInput[],
): Promise<void> {
  const json = JSON.stringify(groups.map((g) => ({ id: g.Id, name: g.Name, up: g.UpGroupId })));
  await sql`
    INSERT INTO sortiment_groups (merchant_id, sortiment_id, id, name, up_group_id)
    SELECT ${merchantId}::bigint, ${sortimentId}::bigint, r.id, r.name, r.up
    FROM json_to_recordset(${json}::json) AS r(id text, name jsonb, up text)
    ON CONFLICT (sortiment_id, id) DO UPDATE SET name = excluded.name, up_group_id = excluded.up_group_id`.execute(
    trx,
  );
}

/** Deletes the sortiment's groups not named in `keep`. */
export async function deleteGroupsOtherThan(
  trx: Transaction<DB>,
  sortimentId: number,
  keep: readonly string[],
): Promise<void> {
  await sql`
    DELETE FROM sortiment_groups
    WHERE sortiment_id = ${sortimentId}
      AND id NOT IN (SELECT json_array_elements_text(${JSON.stringify(keep)}::json))`.execute(trx);
}
