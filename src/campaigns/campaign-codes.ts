import { randomInt } from 'node:crypto';
import { csvLine, typedText } from '../shared/csv.js';

/**
 * Unique codes of a campaign (docs/decisions.md, "Unique codes"): what a code looks like, how it is
 * made and how a basket presents it to the engine.
 */

/**
 * The characters of a generated code: upper-case letters and digits without the ones read for
 * another (no 0/O, no 1/I/L), so that a code printed on a flyer is typed in as printed.
 */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export const CODE_LENGTH = { min: 6, max: 32, default: 10 } as const;
export const CODE_PREFIX_MAX = 20;
export const CODE_BATCH_MAX = 100_000;
/** A prefix: letters, digits and dashes, not starting with a dash, kept in upper case. */
export const CODE_PREFIX_PATTERN = /^(?:[A-Z0-9][A-Z0-9-]*)?$/;

/** A code as stored and compared: without surrounding blanks, upper case (tills may send "abc12"). */
export function normaliseCode(text: string): string {
  return text.trim().toUpperCase();
}

/**
 * The coupon code under which the engine knows a campaign with unique codes: a basket presents
 * it when it holds an unused code of the campaign. It holds U+0000, which no request can carry
 * (the request guards refuse it), so no till can present the key itself; it is never stored.
 */
export function uniqueCodeKey(campaignId: number): string {
  return `\u0000code:${campaignId}`;
}

/** One random code: the prefix, then `length` characters of CODE_ALPHABET drawn by crypto.randomInt. */
export function randomCode(prefix: string, length: number): string {
  let out = prefix;
  for (let i = 0; i < length; i++) out += CODE_ALPHABET.charAt(randomInt(CODE_ALPHABET.length));
  return out;
}

/** `count` distinct random codes, none of them in `taken`. */
export function distinctCodes(
  prefix: string,
  length: number,
  count: number,
  taken: ReadonlySet<string> = new Set(),
): string[] {
  const out = new Set<string>();
  // The space is at least 31^6 (about 887 million) codes; a batch is at most 100,000, so a draw
  // repeats rarely and this loop ends after a few more draws than codes.
  let draws = 0;
  while (out.size < count && draws < count * 20) {
    draws += 1;
    const code = randomCode(prefix, length);
    if (!taken.has(code)) out.add(code);
  }
  return [...out];
}

/** How many distinct codes of this length there are. */
export function codeSpace(length: number): number {
  return CODE_ALPHABET.length ** length;
}

export interface CodeCsvRow {
  readonly code: string;
  readonly batchId: number;
  readonly redeemedAt: string | null;
  readonly terminal: string | null;
  readonly outlet: string | null;
  readonly basketId: string | null;
}

/** The codes as CSV, a header line first, one line per code. */
export function codesCsv(rows: readonly CodeCsvRow[]): string {
  const lines = ['code,batch,redeemed_at,terminal,outlet,basket'];
  for (const r of rows) {
    lines.push(
      csvLine([
        r.code,
        String(r.batchId),
        r.redeemedAt ?? '',
        typedText(r.terminal),
        typedText(r.outlet),
        typedText(r.basketId),
      ]),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
