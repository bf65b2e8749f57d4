import { type RawBuilder, sql } from 'kysely';
import { addDays, localInstantMs, zoneOffsetMinutes } from '../shared/time.js';

/**
 * The time of the dashboard: a period of local days of the merchant's time zone, as the UTC
 * instants that bound it, and the local day and hour of a row computed in the database from the
 * offsets in force over the period (no time zone conversion per row).
 */
export interface DashboardPeriod {
  merchantId: number;
  timeZone: string;
  /** First day, YYYY-MM-DD, inclusive. */
  from: string;
  /** Last day, YYYY-MM-DD, inclusive. */
  to: string;
  /** First instant, UTC ms (the local midnight starting `from`). */
  startMs: number;
  /** End, exclusive, UTC ms: the midnight after `to`, or a time of day of `to` (a period cut at "now"). */
  endMs: number;
  outletId: number | null;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The UTC offset of a time zone at an instant, in seconds. */
function offsetSeconds(timeZone: string, ms: number): number {
  return zoneOffsetMinutes(timeZone, ms) * 60;
}

/** The local day (YYYY-MM-DD) and milliseconds into it of an instant. */
export function localDayOf(ms: number, timeZone: string): { day: string; msOfDay: number } {
  const local = ms + zoneOffsetMinutes(timeZone, ms) * 60_000;
  const day = new Date(local).toISOString().slice(0, 10);
  return { day, msOfDay: local - Date.parse(`${day}T00:00:00Z`) };
}

/** Days from `from` to `to`, both included. */
export function dayCount(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/**
 * The offsets in force over a range of instants: the first from `startMs`, then one per change
 * (daylight saving time), each from the hour it changes.
 */
export function offsetSegments(
  timeZone: string,
  startMs: number,
  endMs: number,
): { fromMs: number; offset: number }[] {
  const segments = [{ fromMs: startMs, offset: offsetSeconds(timeZone, startMs) }];
  for (let day = startMs; day < endMs; day += 24 * HOUR_MS) {
    const next = Math.min(day + 24 * HOUR_MS, endMs);
    if (offsetSeconds(timeZone, next) === segments[segments.length - 1]?.offset) continue;
    for (let h = day + HOUR_MS; h <= next; h += HOUR_MS) {
      const offset = offsetSeconds(timeZone, h);
      if (offset !== segments[segments.length - 1]?.offset) {
        segments.push({ fromMs: h, offset });
        break;
      }
    }
  }
  return segments;
}

/** Seconds since 1970-01-01 in local time of a timestamp column, by the period's offsets. */
function localEpoch(column: string, p: DashboardPeriod): RawBuilder<number> {
  const col = sql.ref(column);
  const [first, ...rest] = offsetSegments(p.timeZone, p.startMs - HOUR_MS, p.endMs + HOUR_MS);
  let offset = sql`${first?.offset ?? 0}::int`;
  if (rest.length > 0) {
    const cases = rest.reverse().map((s) => sql`WHEN ${col} >= ${new Date(s.fromMs)} THEN ${s.offset}::int`);
    offset = sql`CASE ${sql.join(cases, sql` `)} ELSE ${first?.offset ?? 0}::int END`;
  }
  return sql<number>`(extract(epoch FROM ${col}) + ${offset})`;
}

/** The local day of a row as a day number (days since 1970-01-01 in local time). */
export function dayNumber(column: string, p: DashboardPeriod): RawBuilder<number> {
  return sql<number>`floor(${localEpoch(column, p)} / 86400)::int`;
}

/** The local hour of day of a row, 0 to 23. */
export function hourOfDay(column: string, p: DashboardPeriod): RawBuilder<number> {
  return sql<number>`floor(mod(${localEpoch(column, p)}::numeric, 86400) / 3600)::int`;
}

export function dayText(dayNo: number): string {
  return new Date(dayNo * DAY_MS).toISOString().slice(0, 10);
}

/** The period's bounds as SQL parameters. */
export function bounds(p: DashboardPeriod): { start: Date; end: Date } {
  return { start: new Date(p.startMs), end: new Date(p.endMs) };
}

/**
 * A period as the dashboard reads it (docs/decisions.md, "Dashboard figures kept per day"): its
 * whole local days from the figures kept per day, and the part of a last day cut at a time of day
 * (today up to now) from the rows themselves.
 */
export function splitPeriod(p: DashboardPeriod): {
  days: { from: string; to: string } | null;
  rest: DashboardPeriod | null;
} {
  if (p.endMs === localInstantMs(addDays(p.to, 1), 0, p.timeZone))
    return { days: { from: p.from, to: p.to }, rest: null };
  const rest = p.from === p.to ? p : { ...p, from: p.to, startMs: localInstantMs(p.to, 0, p.timeZone) };
  return { days: p.from === p.to ? null : { from: p.from, to: addDays(p.to, -1) }, rest };
}
