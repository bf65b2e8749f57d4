import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError } from '../shared/errors.js';
import type { ParseLimits } from './parse-limits.js';
import { type SegmentedBytes, isSpaceByte as isSpace, spanOf } from './segmented-bytes.js';
import { type XmlTree, parseXml } from './xml.js';

/**
 * Reads a large XML document of the shape `<Root><Field>...</Field><List><Item/>...</List></Root>`
 * without building its tree (docs/decisions.md, "Sortiment"): one pass
 * over the bytes checks the structure (tags balanced and named alike, one root, nesting, the
 * element count) and notes where each child of the root and each item of a list field lies; an
 * item is parsed (xml.ts) only when it is asked for. A 100 MB bulk upload then needs its bytes and
 * one item at a time, not a tree several times their size; the bytes are kept in segments
 * (segmented-bytes.ts) and those before an item already read can be let go (`release`).
 *
 * Field names are matched case-insensitively and without namespace prefix (docs/decisions.md,
 * "Rules the code relies on"); a field given twice counts once, the last time, as in JSON.
 */
export interface XmlItems {
  /** The lower-cased local names of the root's children. */
  readonly fields: ReadonlySet<string>;
  /** Number of child elements of a list field (0 when absent). */
  count(field: string): number;
  /** Item `i` of a list field, as parseXml reads it. */
  item(field: string, i: number): XmlTree;
  /** A whole child of the root as parseXml reads it (small fields only); undefined when absent. */
  value(field: string): XmlTree | undefined;
  /** Lets go of the bytes up to the end of item `i` of a list field (read no earlier item or field after). */
  release(field: string, i: number): void;
  /** The sha256 (base64url) of `prefix` followed by the bytes of item `i` of a list field, as sent. */
  hashItem(field: string, i: number, prefix: Buffer): string;
}

export interface XmlItemLimits extends ParseLimits {
  /** The list fields whose items are located, with the most items each may hold. */
  readonly lists: ReadonlyMap<string, number>;
  /** What answers a list field with more items than it may hold. */
  tooMany(field: string, maxItems: number): AppError;
  /** Nesting depth at most (the reader's own limit of 64). */
  readonly maxDepth: number;
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const QUESTION = 0x3f;
const BANG = 0x21;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;

/** DOCTYPE and entity declarations are refused anywhere in the document, as in xml.ts. */
const FORBIDDEN = ['doctype', 'entity'];

function malformed(buf: SegmentedBytes, at: number, what: string): never {
  throw new AppError('invalidBody', `XML is not well-formed: ${what} (line ${buf.lineAt(at)}).`);
}

function refuseDeclarations(buf: SegmentedBytes): void {
  for (let p = buf.indexOfText('<!', 0); p >= 0; p = buf.indexOfText('<!', p + 2)) {
    const word = buf.text(p + 2, Math.min(p + 9, buf.length)).toLowerCase();
    if (FORBIDDEN.some((f) => word.startsWith(f))) {
      throw new AppError('invalidBody', 'DOCTYPE and entity declarations are not accepted.');
    }
  }
}

/** Position after `end` found from p, or a malformed-document error naming what was open. */
function skipPast(buf: SegmentedBytes, p: number, end: string, what: string): number {
  const q = buf.indexOfText(end, p);
  if (q < 0) malformed(buf, p, `${what} is not closed`);
  return q + end.length;
}

/** The end of a tag that starts at p (after its name), honouring quoted attribute values. */
function tagEnd(buf: SegmentedBytes, p: number): number {
  for (;;) {
    const b = buf.at(p);
    if (b < 0) return malformed(buf, p, 'a tag is not closed');
    if (b === GT) return p;
    if (b === QUOTE || b === APOSTROPHE) {
      const q = buf.indexOf(b, p + 1);
      if (q < 0) malformed(buf, p, 'an attribute value is not closed');
      p = q + 1;
      continue;
    }
    if (b === LT) malformed(buf, p, "'<' inside a tag");
    p++;
  }
}

/** Where the name of a tag starting at p ends. */
function nameEnd(buf: SegmentedBytes, p: number): number {
  let q = p;
  for (;;) {
    const b = buf.at(q);
    if (b < 0 || b === GT || b === SLASH || isSpace(b)) break;
    q++;
  }
  if (q === p) malformed(buf, p, 'a tag without a name');
  return q;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return (colon < 0 ? name : name.slice(colon + 1)).toLowerCase();
}

interface FieldSpan {
  start: number;
  end: number;
  /** Start and end of each item, for list fields. */
  items: number[] | null;
}

/** Tags scanned between two turns of the event loop: some 10 ms of scanning. */
const TAGS_PER_TURN = 65_536;

/**
 * Scans the document. A bulk upload's scan takes about a second per 100 MB; it gives other
 * requests (the same merchant's baskets) a turn every TAGS_PER_TURN tags instead of holding the
 * process for that long.
 */
export async function scanXmlItems(buf: SegmentedBytes, limits: XmlItemLimits): Promise<XmlItems> {
  refuseDeclarations(buf);
  const fields = new Map<string, FieldSpan>();
  // Start and end of the name of each open element (compared as bytes: no string per tag).
  const open: number[] = [];
  const depth = (): number => open.length / 2;
  const openName = (k: number): string => buf.text(open[2 * k] ?? 0, open[2 * k + 1] ?? 0);
  let elements = 0;
  let rootSeen = false;
  let field: { name: string; span: FieldSpan; maxItems: number } | null = null;
  let itemStart = -1;
  let p = buf.at(0) === 0xef && buf.at(1) === 0xbb && buf.at(2) === 0xbf ? 3 : 0;
  let tags = 0;
  while (p < buf.length) {
    if (++tags % TAGS_PER_TURN === 0) await nextTurn();
    const lt = buf.indexOf(LT, p);
    const textEnd = lt < 0 ? buf.length : lt;
    if (depth() <= 1 || (field?.span.items && depth() === 2)) {
      // Text outside the root, or directly in a list field, holds nothing but white space.
      for (let k = p; k < textEnd; k++) {
        if (isSpace(buf.at(k))) continue;
        if (depth() === 0) malformed(buf, k, 'text outside the root element');
        if (depth() === 2 && field) {
          throw new AppError('invalidBody', `${field.name} must be a list of elements.`);
        }
        break;
      }
    }
    if (lt < 0) break;
    p = lt;
    const next = buf.at(p + 1);
    if (next === QUESTION) {
      p = skipPast(buf, p + 2, '?>', 'a processing instruction');
      continue;
    }
    if (next === BANG) {
      if (buf.startsWith(p, '<!--')) p = skipPast(buf, p + 4, '-->', 'a comment');
      else if (buf.startsWith(p, '<![CDATA[')) {
        if (depth() === 0) malformed(buf, p, 'text outside the root element');
        p = skipPast(buf, p + 9, ']]>', 'a CDATA section');
      } else malformed(buf, p, "'<!' that is neither a comment nor CDATA");
      continue;
    }
    if (next === SLASH) {
      const end = nameEnd(buf, p + 2);
      const close = tagEnd(buf, end);
      const openEnd = open.pop();
      const openStart = open.pop();
      if (
        openStart === undefined ||
        openEnd === undefined ||
        !buf.equalRanges(p + 2, end, openStart, openEnd)
      ) {
        const name = buf.text(p + 2, end);
        const expected = openStart === undefined ? undefined : buf.text(openStart, openEnd ?? openStart);
        malformed(
          buf,
          p,
          expected === undefined
            ? `closing tag '${name}' without an opening one`
            : `closing tag '${name}' where '${expected}' is open`,
        );
      }
      p = close + 1;
      if (depth() === 2 && field?.span.items && itemStart >= 0) {
        field.span.items.push(itemStart, p);
        itemStart = -1;
      } else if (depth() === 1 && field) {
        field.span.end = p;
        field = null;
      }
      continue;
    }
    // A start tag.
    const end = nameEnd(buf, p + 1);
    const close = tagEnd(buf, end);
    const selfClosing = buf.at(close - 1) === SLASH;
    elements++;
    if (elements > limits.maxXmlElements) {
      throw new AppError(
        'listTooLong',
        `The XML document holds more than ${limits.maxXmlElements} elements.`,
      );
    }
    if (depth() > limits.maxDepth) {
      throw new AppError('invalidBody', 'XML is not accepted: Maximum nested tags exceeded.');
    }
    if (depth() === 0) {
      if (rootSeen) malformed(buf, p, 'a second root element');
      rootSeen = true;
    } else if (depth() === 1) {
      const name = buf.text(p + 1, end);
      const key = localName(name);
      const maxItems = limits.lists.get(key);
      const span: FieldSpan = { start: p, end: close + 1, items: maxItems === undefined ? null : [] };
      fields.set(key, span);
      field = selfClosing ? null : { name, span, maxItems: maxItems ?? 0 };
    } else if (depth() === 2 && field?.span.items) {
      const items = field.span.items;
      if (items.length >= 2 * field.maxItems) throw limits.tooMany(localName(field.name), field.maxItems);
      if (selfClosing) items.push(p, close + 1);
      else itemStart = p;
    }
    if (!selfClosing) open.push(p + 1, end);
    p = close + 1;
  }
  if (!rootSeen) throw new AppError('invalidBody', 'XML must have exactly one root element.');
  if (depth() > 0) malformed(buf, buf.length, `'${openName(depth() - 1)}' is not closed`);

  const itemLimits: ParseLimits = {
    maxXmlElements: limits.maxXmlElements,
    maxListItems: limits.maxListItems,
  };
  const parse = (start: number, end: number): XmlTree => {
    try {
      return parseXml(buf.text(start, end), itemLimits).value;
    } catch (err) {
      // Lines counted in the whole document, not in the item.
      if (err instanceof AppError && err.detail !== undefined && /\(line \d+\)\.$/.test(err.detail)) {
        const offset = buf.lineAt(start) - 1;
        const detail = err.detail.replace(
          /\(line (\d+)\)\.$/,
          (_m, n: string) => `(line ${Number(n) + offset}).`,
        );
        throw new AppError('invalidBody', detail);
      }
      throw err;
    }
  };
  const itemSpan = (name: string, i: number): [number, number] =>
    spanOf(fields.get(name.toLowerCase())?.items, i, name);
  return {
    fields: new Set(fields.keys()),
    count: (name) => (fields.get(name.toLowerCase())?.items?.length ?? 0) / 2,
    item: (name, i) => {
      const [start, end] = itemSpan(name, i);
      return parse(start, end);
    },
    hashItem: (name, i, prefix) => {
      const [start, end] = itemSpan(name, i);
      return buf.hashWith(prefix, start, end);
    },
    value: (name) => {
      const span = fields.get(name.toLowerCase());
      return span ? parse(span.start, span.end) : undefined;
    },
    release: (name, i) => {
      const end = fields.get(name.toLowerCase())?.items?.[2 * i + 1];
      // Line counts kept: a later item's error names its line in the whole document.
      if (end !== undefined) buf.release(end, true);
    },
  };
}
