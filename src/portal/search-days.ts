import { addDays, localInstantMs } from '../reports/dashboard-period.store.js';

/**
 * The days of a search page's `from` and `to` fields (YYYY-MM-DD) as the instants its API takes:
 * the merchant's days, as the list shows its times, from the start of the first to the start of
 * the day after the last (a bar's bill at 00:30 belongs to the day it shows, not to the one
 * before as UTC's days would have it). A field that is not a day is left out.
 */
export function searchDays(
  q: { from?: string; to?: string },
  timeZone: string,
): { from: string | undefined; to: string | undefined } {
  const day = (v: string | undefined) => (v && /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(v) ? v : null);
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
