import { Readable } from 'node:stream';

/**
 * A list of the portal as CSV, read a batch at a time by the list's own query and cursor and sent
 * as it comes, so that a long export does not sit in the server's memory (docs/decisions.md,
 * "Finding checkout orders").
 */

/** The rows read from the database at a time. */
export const CSV_BATCH = 1_000;

export interface PagedCsv<Row, Key> {
  readonly header: readonly string[];
  /** Up to `limit` rows after `after` (null: from the first), and one more when more follow. */
  readonly page: (after: Key | null, limit: number) => Promise<Row[]>;
  /** The cursor key of a row: the next batch starts after it. */
  readonly keyOf: (row: Row) => Key;
  /** A row's CSV line, without its line break. */
  readonly line: (row: Row) => string;
}

/**
 * The CSV's text a batch of rows at a time, each line ending in CRLF; the first part is the header
 * with the first batch, so that a failure to read it is answered as an error before anything is sent.
 */
export async function* pagedCsv<Row, Key>(
  csv: PagedCsv<Row, Key>,
  batch = CSV_BATCH,
): AsyncGenerator<string> {
  let text = `${csv.header.join(',')}\r\n`;
  let after: Key | null = null;
  for (;;) {
    const rows = await csv.page(after, batch);
    const shown = rows.slice(0, batch);
    if (shown.length > 0) text += `${shown.map(csv.line).join('\r\n')}\r\n`;
    yield text;
    text = '';
    const last = shown.at(-1);
    if (rows.length <= batch || last === undefined) return;
    after = csv.keyOf(last);
  }
}

/**
 * The CSV as a stream to answer with, once its first part is read: an error reading that part
 * (the database unavailable, say) is thrown here and answered from the error catalog.
 */
export async function csvStream(parts: AsyncGenerator<string>): Promise<Readable> {
  const first = await parts.next();
  async function* all(): AsyncGenerator<string> {
    if (!first.done) yield first.value;
    yield* parts;
  }
  return Readable.from(all());
}
