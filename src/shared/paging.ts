import { AppError } from './errors.js';

/**
 * Cursor paging, the one style of every list of every API (docs/decisions.md, "Paging"):
 * `limit` and `cursor` in, `{data, hasMore, nextCursor}` out. A cursor is opaque to clients: the
 * list's name and the sort key of the last row given out (for most lists its creation time and
 * id), base64url-encoded JSON. The next page starts after that key, so rows inserted meanwhile
 * never shift a page (no offsets). A cursor of another list, or one that does not decode, is 400
 * `invalid_cursor`.
 */

export const PAGE_LIMIT_DEFAULT = 20;
export const PAGE_LIMIT_MAX = 100;

/** The sort key of a row: its values in the list's order, the unique tie-breaker (the id) last. */
export type PageKey = readonly (string | number)[];

/** A list's paging as its query gives it. */
export interface PageQuery {
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

export interface PageRequest {
  readonly limit: number;
  /** The key of the last row of the previous page; null on the first page. */
  readonly after: PageKey | null;
}

export interface Page<T> {
  readonly data: T[];
  readonly hasMore: boolean;
  /** Pass as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

export function encodeCursor(list: string, key: PageKey): string {
  return Buffer.from(JSON.stringify([list, ...key]), 'utf8').toString('base64url');
}

function refuseCursor(): never {
  throw new AppError('invalidCursor', 'Pass the nextCursor of the previous page of this list as it is.');
}

/** What each value of a list's sort key is, in its order: a number (a time in ms, a numeric id) or a text. */
export type KeyShape = readonly ('number' | 'string')[];

/**
 * The key in a cursor of `list` whose values are of `shape`; 400 `invalid_cursor` for anything
 * else, also a cursor of this list whose values are of other kinds (made up, not given out).
 */
export function decodeCursor(list: string, text: string, shape: KeyShape): PageKey {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(text)) return refuseCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return refuseCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== shape.length + 1 || parsed[0] !== list)
    return refuseCursor();
  const key = parsed.slice(1) as unknown[];
  key.forEach((v, i) => {
    const ok =
      shape[i] === 'string'
        ? typeof v === 'string' && v.length <= 200
        : typeof v === 'number' && Number.isSafeInteger(v);
    if (!ok) refuseCursor();
  });
  return key as PageKey;
}

/** The page request of `limit` and `cursor` as a list's query gives them. */
export function pageRequest(list: string, query: PageQuery, shape: KeyShape): PageRequest {
  const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > PAGE_LIMIT_MAX) {
    throw new AppError('refused', `limit must be 1 to ${PAGE_LIMIT_MAX}.`);
  }
  return {
    limit,
    after: query.cursor === undefined ? null : decodeCursor(list, query.cursor, shape),
  };
}

/** The id after which a list paged by a numeric id alone goes on; null on the first page. */
export function afterId(page: PageRequest): number | null {
  return page.after === null ? null : Number(page.after[0]);
}

/**
 * The page of rows read with `limit + 1` (the one past the page tells that there are more): the
 * first `limit`, with the cursor of the last of them.
 */
export function pageOf<R, T>(
  list: string,
  rows: readonly R[],
  limit: number,
  keyOf: (row: R) => PageKey,
  map: (row: R) => T,
): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  const hasMore = rows.length > limit && last !== undefined;
  return {
    data: shown.map(map),
    hasMore,
    nextCursor: hasMore ? encodeCursor(list, keyOf(last)) : null,
  };
}

/** A time bound of a list's filter (`createdFrom`, `createdTo`) in ms, or undefined. */
export function timeBound(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new AppError('refused', `${name} is no ISO 8601 date-time.`);
  return ms;
}

/** Both bounds, checked in order: createdFrom (inclusive) before createdTo (exclusive). */
export interface CreatedRange {
  readonly fromMs?: number;
  readonly toMs?: number;
}

export function createdRange(query: { createdFrom?: string; createdTo?: string }): CreatedRange {
  const fromMs = timeBound('createdFrom', query.createdFrom);
  const toMs = timeBound('createdTo', query.createdTo);
  if (fromMs !== undefined && toMs !== undefined && toMs < fromMs) {
    throw new AppError('refused', 'createdTo is before createdFrom.');
  }
  return { ...(fromMs === undefined ? {} : { fromMs }), ...(toMs === undefined ? {} : { toMs }) };
}
