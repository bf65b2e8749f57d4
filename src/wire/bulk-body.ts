import { AppError } from '../shared/errors.js';
import { BULK_MAX_ARTICLES, type BulkSource } from '../sortiment/bulk-upload.js';
import { type JsonItems, scanJsonItems } from './json-items.js';
import { normaliseValue } from './normalise.js';
import { REQUEST_LIMITS } from './parse-limits.js';
import type { SegmentedBytes } from './segmented-bytes.js';
import type { XmlItemLimits, XmlItems } from './xml-items.js';

/**
 * The body of a sortiment bulk upload as a source of items read one at a time (bulk-upload.ts),
 * from JSON bytes (json-items.ts) or a scanned XML document (xml-items.ts): neither is held as one
 * parsed tree. Each article's lists are bounded like those of any other body; the article list
 * by BULK_MAX_ARTICLES, counted while the body is scanned.
 */

const tooMany = (field: string, maxItems: number): AppError =>
  field === 'articles'
    ? new AppError('tooManyArticles', `At most ${maxItems} articles.`)
    : new AppError('listTooLong', `${field} holds more than ${maxItems} items.`);

/**
 * An XML bulk upload: at most 20,000,000 elements, so that BULK_MAX_ARTICLES articles with every
 * field of the document (about 70 elements each) fit as they do in JSON; no element becomes an
 * object before its article is read, and the body's byte limit bounds the scan. The reader's
 * nesting limit as for every body.
 */
export const BULK_XML_LIMITS: XmlItemLimits = {
  maxXmlElements: 20_000_000,
  maxListItems: REQUEST_LIMITS.maxListItems,
  maxDepth: 64,
  lists: new Map([
    ['articles', BULK_MAX_ARTICLES],
    ['groups', REQUEST_LIMITS.maxListItems],
  ]),
  tooMany,
};

/**
 * A JSON body's items, scanned from its bytes and read one article at a time; the bytes of each
 * article are let go once it is read (the groups and other fields are read before the first).
 */
export function jsonSource(raw: SegmentedBytes): BulkSource {
  const items = scanJsonItems(raw, {
    maxItems: (field) => (field === 'articles' ? BULK_MAX_ARTICLES : REQUEST_LIMITS.maxListItems),
    tooMany,
  });
  const listOrAbsent = (field: string): boolean => {
    if (!items.fields.has(field) || items.isArray(field)) return items.fields.has(field);
    if (items.value(field) === null) return false;
    throw new AppError('invalidBody', `${field === 'groups' ? 'Groups' : 'Articles'} must be a list.`);
  };
  const hasGroups = listOrAbsent('groups');
  listOrAbsent('articles');
  return {
    groups: hasGroups ? (items.value('groups') as unknown[]) : undefined,
    articleCount: items.count('articles'),
    article: (i) => {
      const item = items.item('articles', i);
      items.release('articles', i);
      return item;
    },
    rawHash: rawHasher(items),
    skip: (i) => items.release('articles', i),
  };
}

/**
 * The sha256 of article `i`'s bytes as sent, after `salt` and `format` (bulk-upload.ts), for one
 * source: the bytes of the salt are made once.
 */
function rawHasher(items: JsonItems | XmlItems, format = ''): (i: number, salt: string) => string {
  let salted: string | null = null;
  let prefix = Buffer.alloc(0);
  return (i, salt) => {
    if (salt !== salted) {
      prefix = Buffer.from(`${salt}${format}`, 'utf8');
      salted = salt;
    }
    return items.hashItem('articles', i, prefix);
  };
}

/** Any list: an XML element's children become its items whatever their names. */
const LIST = { type: 'array', items: {} };

/**
 * An XML body's items: the groups read as one (a short list), the articles one at a time, the bytes
 * of each let go once it is read (as for JSON).
 */
export function xmlSource(items: XmlItems): BulkSource {
  const groups = items.fields.has('groups') ? normaliseValue(items.value('groups'), LIST, true) : undefined;
  return {
    groups: Array.isArray(groups) ? groups : undefined,
    articleCount: items.count('articles'),
    article: (i) => {
      const item = items.item('articles', i);
      items.release('articles', i);
      return item;
    },
    // An XML item is parsed from its own bytes alone (xml-items.ts; the document may declare no
    // entities), so they decide what it is, as in JSON; the format is part of the salt, since the
    // same bytes would be read otherwise in JSON.
    rawHash: rawHasher(items, 'xml:'),
    skip: (i) => items.release('articles', i),
  };
}
