import { addDays, isCalendarDay, localInstantMs } from '../shared/time.js';

/**
 * The days of a search page's `from` and `to` fields (YYYY-MM-DD) as the instants its API takes:
 * the merchant's days, as the list shows its times, from the start of the first to the start of
 * the day after the last (a bar's bill at 00:30 belongs to the day it shows, not to the one
 * before as UTC's days would have it). A field that is not a day of the calendar is left out.
 */
export function searchDays(
  q: { from?: string; to?: string },
  timeZone: string,
): { from: string | undefined; to: string | undefined } {
  const day = (v: string | undefined) => (v !== undefined && isCalendarDay(v) ? v : null);
  const startOf = (d: string) => new Date(localInstantMs(d, 0, timeZone)).toISOString();
  const from = day(q.from);
  const to = day(q.to);
  return { from: from ? startOf(from) : undefined, to: to ? startOf(addDays(to, 1)) : undefined };
}

/** An id filter of a search page (an outlet, a shop, a customer), when it is one. */
export function searchId(v: string | undefined): number | undefined {
  return /^[1-9][0-9]{0,9}$/.test(v ?? '') ? Number(v) : undefined;
}

/** A text filter of a search page, when it is at most `most` characters long. */
export function searchText(v: string | undefined, most: number): string | undefined {
  return v && v.length <= most ? v : undefined;
}

/**
 * A page's query as its handlers read it: one text per field (the first, where a hand-made link
 * repeats a field), or null when a field's name or value holds U+0000, which no text of the
 * database holds (the API refuses it the same way, src/wire/request-guards.ts).
 */
export function pageQuery(query: unknown): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    const first: unknown = Array.isArray(value) ? value[0] : value;
    const text = typeof first === 'string' ? first : '';
    if (name.includes('\u0000') || text.includes('\u0000')) return null;
    out[name] = text;
  }
  return out;
}
