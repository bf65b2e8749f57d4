import { AppError } from '../shared/errors.js';
import { REQUEST_LIMITS, checkJsonListLengths } from './parse-limits.js';
import { NUL_REFUSED, SURROGATE_REFUSED, hasLoneSurrogateEscape, hasNulEscape } from './request-guards.js';
import { type SegmentedBytes, isSpaceByte as isSpace, spanOf } from './segmented-bytes.js';

/**
 * Reads a large JSON document of the shape `{"Key": [item, item, ...], ...}` without building the
 * whole tree: one pass finds where each top-level field and each item of the array fields lies,
 * and an item is parsed only when it is asked for. A 60 MB bulk upload then needs the bytes not yet
 * read (segmented-bytes.ts) and one item at a time, instead of a tree several times the size of
 * the text.
 *
 * Field names are matched case-insensitively (docs/decisions.md, "Field names"); a field named twice counts
 * once, the last time, as JSON.parse would do. Syntax errors answer 400 / 1000.
 */
export interface JsonItems {
  /** The lower-cased top-level field names present. */
  readonly fields: ReadonlySet<string>;
  /** True when the field is present and its value an array. */
  isArray(field: string): boolean;
  /** Number of items of an array field (0 when absent or not an array). */
  count(field: string): number;
  /** Parses item `i` of an array field. */
  item(field: string, i: number): unknown;
  /** Parses a whole top-level field (small fields only). */
  value(field: string): unknown;
  /** Lets go of the bytes up to the end of item `i` of an array field: nothing before it is read again. */
  release(field: string, i: number): void;
  /** The sha256 (base64url) of `prefix` followed by the bytes of item `i` of an array field, as sent. */
  hashItem(field: string, i: number, prefix: Buffer): string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function syntax(at: number, what: string): never {
  throw new AppError('invalidBody', `JSON is not valid: ${what} at byte ${at}.`);
}

/** Scans one JSON document; returns the position after it. */
class Scanner {
  constructor(private readonly buf: SegmentedBytes) {}

  skipSpace(p: number): number {
    const { buf } = this;
    while (p < buf.length && isSpace(buf.at(p))) p++;
    return p;
  }

  /** Position after the string that starts at p (which holds a quote). */
  skipString(p: number): number {
    const { buf } = this;
    p++;
    for (;;) {
      const q = buf.indexOf(QUOTE, p);
      if (q < 0) syntax(p, 'unterminated string');
      // The quote is escaped when an odd number of backslashes precede it.
      let backslashes = 0;
      for (let k = q - 1; k >= p && buf.at(k) === BACKSLASH; k--) backslashes++;
      if (backslashes % 2 === 0) return q + 1;
      p = q + 1;
    }
  }

  /**
   * Position after the value that starts at p (nested values are only balanced, not checked). An
   * object or array is walked on the bytes of each segment itself, a string's end found with the
   * segment's own search: through `at` for every byte the scan of a 100,000-article body took
   * about 0.5 s (docs/performance.md, "Sortiment bulk upload").
   */
  skipValue(p: number): number {
    const { buf } = this;
    const first = buf.at(p);
    if (first === QUOTE) return this.skipString(p);
    if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
      while (p < buf.length) {
        const b = buf.at(p);
        if (b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY || isSpace(b)) break;
        p++;
      }
      return p;
    }
    let depth = 0;
    while (p < buf.length) {
      const bytes = buf.segmentAt(p);
      const base = buf.segmentStart(p);
      let k = p - base;
      while (k < bytes.length) {
        const b = bytes[k];
        if (b === QUOTE) {
          // Walked here, an escape's backslash and the byte after it passed over: the strings of
          // an item are short, and a Buffer search per string cost more than the walk.
          let q = k + 1;
          while (q < bytes.length) {
            const c = bytes[q];
            if (c === QUOTE) break;
            q += c === BACKSLASH ? 2 : 1;
          }
          // The closing quote in this segment; else (a string across segments) the general way.
          k = q < bytes.length ? q + 1 : this.skipString(base + k) - base;
          continue;
        }
        if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
        else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
          depth--;
          if (depth === 0) return base + k + 1;
        }
        k++;
      }
      p = base + k;
    }
    return syntax(p, 'unexpected end');
  }
}

interface Field {
  start: number;
  end: number;
  /** Start and end of each item, when the value is an array. */
  items: number[] | null;
}

/** How many items each array field may hold, and what answers one that holds more. */
export interface ItemLimits {
  maxItems(field: string): number;
  tooMany(field: string, maxItems: number): AppError;
}

const DEFAULT_LIMITS: ItemLimits = {
  maxItems: () => REQUEST_LIMITS.maxListItems,
  tooMany: (_field, maxItems) => new AppError('listTooLong', `A list holds more than ${maxItems} items.`),
};

/**
 * Parses the text from `start` to `end`. Every string of the document lies in a field name or an
 * item parsed here, so the escapes refused in any request body (U+0000, a lone surrogate) are
 * looked for here, piece by piece, rather than in the whole body at once.
 */
function parseText(buf: SegmentedBytes, start: number, end: number): unknown {
  const text = buf.text(start, end);
  if (hasNulEscape(text)) throw new AppError('invalidBody', NUL_REFUSED);
  if (hasLoneSurrogateEscape(text)) throw new AppError('invalidBody', SURROGATE_REFUSED);
  // The lists inside one item are bounded like those of any other request body.
  checkJsonListLengths(text, REQUEST_LIMITS.maxListItems);
  try {
    return JSON.parse(text);
  } catch (err) {
    return syntax(start, err instanceof Error ? err.message : 'bad value');
  }
}

export function scanJsonItems(buf: SegmentedBytes, limits: ItemLimits = DEFAULT_LIMITS): JsonItems {
  const parse = (start: number, end: number): unknown => parseText(buf, start, end);
  const s = new Scanner(buf);
  const fields = new Map<string, Field>();
  // A byte order mark (some Windows tills write one) is not part of the JSON text.
  let p = s.skipSpace(buf.at(0) === 0xef && buf.at(1) === 0xbb && buf.at(2) === 0xbf ? 3 : 0);
  if (buf.at(p) !== OPEN_OBJECT) syntax(p, 'expected an object');
  p = s.skipSpace(p + 1);
  if (buf.at(p) === CLOSE_OBJECT) {
    p++;
  } else {
    for (;;) {
      if (buf.at(p) !== QUOTE) syntax(p, 'expected a field name');
      const keyEnd = s.skipString(p);
      const key = parse(p, keyEnd) as string;
      p = s.skipSpace(keyEnd);
      if (buf.at(p) !== COLON) syntax(p, 'expected ":"');
      p = s.skipSpace(p + 1);
      const start = p;
      let items: number[] | null = null;
      if (buf.at(p) === OPEN_ARRAY) {
        items = [];
        // Counted while scanning: a list longer than allowed is refused before it is all read.
        const maxItems = limits.maxItems(key.toLowerCase());
        p = s.skipSpace(p + 1);
        if (buf.at(p) === CLOSE_ARRAY) {
          p++;
        } else {
          for (;;) {
            const itemStart = p;
            p = s.skipValue(p);
            items.push(itemStart, p);
            if (items.length > 2 * maxItems) throw limits.tooMany(key.toLowerCase(), maxItems);
            p = s.skipSpace(p);
            if (buf.at(p) === COMMA) {
              p = s.skipSpace(p + 1);
              continue;
            }
            if (buf.at(p) !== CLOSE_ARRAY) syntax(p, 'expected "," or "]"');
            p++;
            break;
          }
        }
      } else {
        p = s.skipValue(p);
      }
      fields.set(key.toLowerCase(), { start, end: p, items });
      p = s.skipSpace(p);
      if (buf.at(p) === COMMA) {
        p = s.skipSpace(p + 1);
        continue;
      }
      if (buf.at(p) !== CLOSE_OBJECT) syntax(p, 'expected "," or "}"');
      p++;
      break;
    }
  }
  if (s.skipSpace(p) !== buf.length) syntax(p, 'text after the document');

  const itemSpan = (field: string, i: number): [number, number] =>
    spanOf(fields.get(field.toLowerCase())?.items, i, field);
  return {
    fields: new Set(fields.keys()),
    isArray: (field) => (fields.get(field.toLowerCase())?.items ?? null) !== null,
    count: (field) => (fields.get(field.toLowerCase())?.items?.length ?? 0) / 2,
    item: (field, i) => {
      const [start, end] = itemSpan(field, i);
      return parse(start, end);
    },
    value: (field) => {
      const f = fields.get(field.toLowerCase());
      return f ? parse(f.start, f.end) : undefined;
    },
    hashItem: (field, i, prefix) => {
      const [start, end] = itemSpan(field, i);
      return buf.hashWith(prefix, start, end);
    },
    release: (field, i) => {
      const end = fields.get(field.toLowerCase())?.items?.[2 * i + 1];
      if (end !== undefined) buf.release(end);
    },
  };
}
