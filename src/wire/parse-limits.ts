import { AppError } from '../shared/errors.js';

/**
 * How much structure a request body may hold, checked while it is read (docs/security.md,
 * "Authentication before the body and parse limits"). The byte limits (BODY_LIMIT_BYTES,
 * BULK_BODY_LIMIT_BYTES) bound the text; these bound what the text turns into, so that a small
 * compressed body cannot become millions of objects.
 */
export interface ParseLimits {
  /** Elements of one XML document. */
  readonly maxXmlElements: number;
  /** Items of one list (a JSON array, an XML element's repeated children). */
  readonly maxListItems: number;
}

/**
 * Every request but the bulk upload: 100,000 XML elements (a 5 MiB body then averages 50 bytes
 * per element; a 1,000-position basket needs about 20,000), 10,000 items per list (the longest
 * list any schema allows, the outlet ids of a campaign).
 */
export const REQUEST_LIMITS: ParseLimits = { maxXmlElements: 100_000, maxListItems: 10_000 };

export function listTooLong(maxItems: number): AppError {
  return new AppError('listTooLong', `A list holds more than ${maxItems} items.`);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Refuses JSON text holding an array of more than `maxItems` items (400 / 1030), before it is
 * parsed into objects. Text of at most 2 * maxItems characters cannot hold one (an item and its
 * comma take two), so the usual small body is not scanned at all. The scan only counts commas
 * per open array; syntax is left to the parser.
 */
export function checkJsonListLengths(text: string, maxItems: number): void {
  if (text.length <= 2 * maxItems) return;
  // Per open bracket: the items seen so far of an array, -1 for an object.
  const open: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY) open.push(1);
    else if (c === OPEN_OBJECT) open.push(-1);
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) open.pop();
    else if (c === COMMA) {
      const top = open.length - 1;
      const count = open[top];
      if (count !== undefined && count >= 0) {
        if (count + 1 > maxItems) throw listTooLong(maxItems);
        open[top] = count + 1;
      }
    }
  }
}
