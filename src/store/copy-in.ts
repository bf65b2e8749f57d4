import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { giveUp, isReadTimeout } from './connection-limits.js';

/**
 * `COPY table (columns) FROM STDIN` through Kysely on both databases (docs/decisions.md,
 * "Sortiment": a bulk upload writes its new rows this way). A store runs the statement with
 * `CompiledQuery.raw(text, [new CopyData(chunks)])` in its transaction: the drivers below see the
 * CopyData parameter and send the chunks as COPY's data, in PostgreSQL's text format, instead
 * of sending a parameter. Written as rows of INSERT ... SELECT FROM json_to_recordset(...), the
 * 100,000 articles of the sortiment benchmark cost PostgreSQL about 5 to 7 s of CPU and PGlite
 * about 9 s; as COPY, 3 and 4.5 s (docs/performance.md).
 */
export class CopyData {
  /**
   * The data in chunks of whole lines, each made when it is sent (a batch's text is never held
   * whole): text, or its UTF-8 bytes.
   */
  constructor(readonly chunks: Iterable<string | Buffer>) {}
}

const FROM_STDIN = /\bFROM\s+STDIN\b/i;

function copyDataOf(text: unknown, values: unknown): CopyData | null {
  if (typeof text !== 'string' || !Array.isArray(values) || values.length !== 1) return null;
  const [data] = values as unknown[];
  if (!(data instanceof CopyData)) return null;
  if (!FROM_STDIN.test(text)) throw new Error('CopyData is the data of a COPY ... FROM STDIN only');
  return data;
}

/** A COPY field in the text format: backslash, tab and line ends escaped. */
export function copyField(value: string | null): string {
  if (value === null) return '\\N';
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, escapeChar) : value;
}

/**
 * A text written by JSON.stringify (without indentation) as a COPY field in the text format. Such
 * a text holds no tab, line feed or carriage return (JSON.stringify escapes every control
 * character inside strings and writes no white space between tokens), so only backslashes are
 * doubled: a search for one character instead of `copyField`'s for four, over every stored body
 * of a bulk upload.
 */
export function copyJsonField(json: string): string {
  return json.includes('\\') ? json.replaceAll('\\', '\\\\') : json;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const escapeChar = (c: string): string => ESCAPES[c] ?? c;

type QueryResultLike = { command: string; rowCount: number; rows: never[] };

/** Sends the chunks through a COPY stream on `client`, waiting whenever the socket is full. */
async function copyIn(client: pg.Client, text: string, data: CopyData): Promise<QueryResultLike> {
  const stream = baseQuery.call(client, copyFrom(text)) as unknown as ReturnType<typeof copyFrom>;
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  try {
    for (const chunk of data.chunks) {
      if (!stream.write(chunk)) {
        await new Promise<void>((resolve, reject) => {
          const onError = (err: Error) => reject(err);
          stream.once('error', onError);
          stream.once('drain', () => {
            stream.off('error', onError);
            resolve();
          });
        });
      }
    }
  } catch (err) {
    // The statement is given up: PostgreSQL is told so and the transaction fails.
    stream.destroy(err instanceof Error ? err : new Error(String(err)));
    await done.catch(() => undefined);
    throw err;
  }
  stream.end();
  await done;
  return { command: 'COPY', rowCount: stream.rowCount, rows: [] };
}

const baseQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;

/**
 * The pool's client: a query whose one parameter is a CopyData runs as COPY FROM STDIN. A statement
 * not answered within the pool's limit (`query_timeout`, src/store/db.ts) fails with the driver's
 * "Query read timeout", and the connection it was sent on is given up (connection-limits.ts); the
 * pool drops it when it comes back and opens a new one (docs/decisions.md, "A database that stops
 * answering").
 */
export class CopyClient extends pg.Client {}
CopyClient.prototype.query = function query(this: pg.Client, ...args: unknown[]): unknown {
  const data = copyDataOf(args[0], args[1]);
  const result = data === null ? baseQuery.apply(this, args) : copyIn(this, args[0] as string, data);
  if (!(result instanceof Promise)) return result;
  return result.catch((err: unknown) => {
    if (isReadTimeout(err)) giveUp(this);
    throw err;
  });
} as typeof pg.Client.prototype.query;

/**
 * The embedded database seen by Kysely's dialect: COPY ... FROM STDIN with a CopyData parameter
 * reads its data from PGlite's `/dev/blob`, a Blob of the chunks (kept outside the JavaScript heap).
 */
export function copyingPGlite(pglite: PGlite): PGlite {
  const plain = pglite.query.bind(pglite);
  const query = (text: string, params?: unknown[], options?: Parameters<PGlite['query']>[2]) => {
    const data = copyDataOf(text, params);
    if (data === null) return plain(text, params, options);
    const parts = Array.from(data.chunks, (chunk) =>
      typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk,
    );
    return plain(text.replace(FROM_STDIN, "FROM '/dev/blob'"), [], { ...options, blob: new Blob(parts) });
  };
  return new Proxy(pglite, {
    get(target, prop) {
      if (prop === 'query') return query;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
