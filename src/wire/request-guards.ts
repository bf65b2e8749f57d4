import { AppError } from '../shared/errors.js';

/**
 * Guards every request passes before a route sees it, so that a value the database cannot hold
 * is refused as a bad request (400 / 1000) instead of failing in a query.
 */

/** PostgreSQL text and jsonb cannot hold U+0000; a string with it is refused wherever it comes. */
export const NUL_REFUSED = 'Text must not contain the character U+0000.';

const BACKSLASH = 0x5c;
const NUL_ESCAPE = '\\u0000';

/**
 * Whether JSON text holds the escape of U+0000 (the only way JSON can carry it). An escape is one
 * preceded by an even number of backslashes: `\\u0000` is a backslash followed by "u0000".
 */
export function hasNulEscape(json: string | Buffer): boolean {
  for (let at = json.indexOf(NUL_ESCAPE); at >= 0; at = json.indexOf(NUL_ESCAPE, at + 1)) {
    let backslashes = 0;
    for (let i = at - 1; i >= 0; i--) {
      const c = typeof json === 'string' ? json.charCodeAt(i) : json[i];
      if (c !== BACKSLASH) break;
      backslashes++;
    }
    if (backslashes % 2 === 0) return true;
  }
  return false;
}

/**
 * PostgreSQL jsonb refuses an unpaired UTF-16 surrogate (`\ud800` alone), and text columns get
 * a replacement character instead of what was sent; such text is refused wherever it comes.
 */
export const SURROGATE_REFUSED = 'Text must not contain an unpaired UTF-16 surrogate (\\ud800 to \\udfff).';

const ESCAPE_U = '\\u';

function hexAt(json: string | Buffer, at: number): number {
  const text = typeof json === 'string' ? json.slice(at, at + 4) : json.toString('latin1', at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(text) ? parseInt(text, 16) : -1;
}

function isEscapeAt(json: string | Buffer, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0; i--) {
    const c = typeof json === 'string' ? json.charCodeAt(i) : json[i];
    if (c !== BACKSLASH) break;
    backslashes++;
  }
  return backslashes % 2 === 0;
}

/**
 * Whether JSON text escapes a surrogate without its pair (`"\ud800"`, `"\udc00x"`). JSON text
 * read from UTF-8 cannot hold a raw one, so the escapes are all there is to look at; the usual
 * body has no `\u` at all and costs one search.
 */
export function hasLoneSurrogateEscape(json: string | Buffer): boolean {
  let pendingHighEnd = -1;
  for (let at = json.indexOf(ESCAPE_U); at >= 0; at = json.indexOf(ESCAPE_U, at + 2)) {
    if (!isEscapeAt(json, at)) continue;
    const code = hexAt(json, at + 2);
    const isHigh = code >= 0xd800 && code <= 0xdbff;
    const isLow = code >= 0xdc00 && code <= 0xdfff;
    if (pendingHighEnd >= 0) {
      // A high surrogate must be followed at once by the escape of a low one.
      if (at !== pendingHighEnd || !isLow) return true;
      pendingHighEnd = -1;
      continue;
    }
    if (isLow) return true;
    if (isHigh) pendingHighEnd = at + 6;
  }
  return pendingHighEnd >= 0;
}

const BOM_BYTES = [0xef, 0xbb, 0xbf] as const;

/**
 * A JSON request body as the parsers read it, text or bytes: without a byte order mark (some
 * Windows tills write one; it is not part of the JSON text), and refused (400 / 1000) when it
 * carries U+0000.
 */
export function jsonBodyText<T extends string | Buffer>(raw: T): T {
  const body = (
    typeof raw === 'string'
      ? raw.charCodeAt(0) === 0xfeff
        ? raw.slice(1)
        : raw
      : BOM_BYTES.every((b, i) => raw[i] === b)
        ? raw.subarray(BOM_BYTES.length)
        : raw
  ) as T;
  if (hasNulEscape(body)) throw new AppError('invalidBody', NUL_REFUSED);
  if (hasLoneSurrogateEscape(body)) throw new AppError('invalidBody', SURROGATE_REFUSED);
  return body;
}

/** Whether a decoded path or query holds U+0000 in a name or a value. */
export function hasNul(values: unknown): boolean {
  if (typeof values !== 'object' || values === null) return false;
  for (const [name, value] of Object.entries(values)) {
    if (name.includes('\u0000')) return true;
    if (typeof value === 'string' && value.includes('\u0000')) return true;
    if (Array.isArray(value) && value.some((v) => typeof v === 'string' && v.includes('\u0000'))) return true;
  }
  return false;
}

/** The parts of a JSON schema this module looks at. */
interface SchemaNode {
  type?: unknown;
  minimum?: number;
  maximum?: number;
  [key: string]: unknown;
}

const isIntegerNode = (node: SchemaNode): boolean =>
  node.type === 'integer' || (Array.isArray(node.type) && node.type.includes('integer'));

/**
 * A copy of a request schema in which every integer without bounds is bounded by the safe
 * integers: ids and amounts are bigint in the database and numbers in the service, and a larger
 * value (1e20 in a query) would otherwise reach a query and fail there.
 */
export function boundIntegers<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map((s: unknown) => boundIntegers(s)) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(schema as SchemaNode)) {
    // `properties` and the like hold schemas; `enum`, `required` and `default` hold values.
    out[key] =
      key === 'enum' || key === 'const' || key === 'default' || key === 'examples'
        ? value
        : boundIntegers(value);
  }
  for (const sym of Object.getOwnPropertySymbols(schema)) {
    (out as Record<symbol, unknown>)[sym] = (schema as Record<symbol, unknown>)[sym];
  }
  if (isIntegerNode(out)) {
    if (out.maximum === undefined) out.maximum = Number.MAX_SAFE_INTEGER;
    if (out.minimum === undefined) out.minimum = -Number.MAX_SAFE_INTEGER;
  }
  return out as T;
}
