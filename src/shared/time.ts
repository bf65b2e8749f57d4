import { BoundedCache } from './bounded-cache.js';

/**
 * ISO 8601 instants as the documents send them: with an offset, which is kept because local
 * rules (happy hours) use the wall-clock time of the terminal.
 */
export interface Instant {
  readonly utcMs: number;
  /** Offset of the sender's wall clock from UTC, in minutes (+60 for +01:00). */
  readonly offsetMinutes: number;
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A formatter per time zone, whose text holds the zone's offset ("13h GMT+01:00" in Berlin at
 * noon UTC in winter). It formats the hour only: the offset is all that is read, and `format` with
 * a regular expression costs a quarter of `formatToParts` (0.6 against 2.6 µs a call). Building one
 * costs some 80 µs. A name the platform does not know throws before anything is kept; at most 1,000
 * names are kept (the bounded cache).
 *
 * With it, the zone's offset through the UTC hour last asked twice, when the offset did not change
 * in it (its first and last millisecond have the same offset): an order or a basket asks for the
 * shop's offset now, the same hour as the requests before it, and reads it back (0.07 to 0.16 µs,
 * measured alone) instead of formatting (1.1 µs alone; 8 µs an order in the checkout orders'
 * profile under load). No zone's offset changes twice within an hour, so an hour whose two ends
 * agree has one offset throughout; an hour with a change in it is formatted at every call. A time
 * sent without an offset asks for two hours in turn, its wall clock's and its instant's: an hour up
 * to a day before the one last asked leaves that one be, so the later of the two is kept and the
 * earlier formatted, never both. A list of instants in other hours (a customer's purchases)
 * formats each once, as before.
 */
interface ZoneOffsets {
  readonly format: Intl.DateTimeFormat;
  /** The UTC hour (milliseconds / 3,600,000, floored) `offset` holds for, or NaN. */
  hour: number;
  offset: number;
  /** The hour last asked but for those up to a day before it, or NaN. */
  asked: number;
}

const zones = new BoundedCache<string, ZoneOffsets>(1_000);

function zoneOffsets(timeZone: string): ZoneOffsets {
  return zones.getOrSet(timeZone, () => ({
    format: new Intl.DateTimeFormat('en-US', {
      timeZone,
      timeZoneName: 'longOffset',
      hour: 'numeric',
      hourCycle: 'h23',
    }),
    hour: Number.NaN,
    offset: 0,
    asked: Number.NaN,
  }));
}

const OFFSET = /GMT([+-])(\d{2}):?(\d{2})?/;
const HOUR_MS = 3_600_000;
/** Hours before the one last asked that leave it be: more than the 14 a wall clock's hour lies from its instant's. */
const DAY_HOURS = 24;
/** The latest instant a Date holds (and the earliest, negated). */
const MAX_DATE_MS = 8.64e15;

function formattedOffset(format: Intl.DateTimeFormat, utcMs: number): number {
  const m = OFFSET.exec(format.format(utcMs));
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -minutes : minutes;
}

/** Offset of a time zone at an instant, in minutes. */
export function zoneOffsetMinutes(timeZone: string, utcMs: number): number {
  const zone = zoneOffsets(timeZone);
  const hour = Math.floor(utcMs / HOUR_MS);
  if (hour === zone.hour) return zone.offset;
  const offset = formattedOffset(zone.format, utcMs);
  if (hour !== zone.asked) {
    // The earlier hour of a time sent without an offset leaves the later one to be kept.
    if (!(hour < zone.asked && hour >= zone.asked - DAY_HOURS)) zone.asked = hour;
    return offset;
  }
  // Asked again: kept for the hour when the offset holds from its first millisecond to its last;
  // the first and last hours of the dates the platform formats are never kept.
  if (
    Math.abs(hour * HOUR_MS) < MAX_DATE_MS - HOUR_MS &&
    formattedOffset(zone.format, hour * HOUR_MS) === offset &&
    formattedOffset(zone.format, hour * HOUR_MS + HOUR_MS - 1) === offset
  ) {
    zone.hour = hour;
    zone.offset = offset;
  }
  return offset;
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: the instants parseInstant accepts. */
const FIRST_INSTANT_MS = -62_135_596_800_000;
const LAST_INSTANT_MS = 253_402_300_799_999;

/**
 * Reads an ISO 8601 date-time. One without an offset (as some .NET tills send) is read in
 * `defaultTimeZone`, the merchant's zone. Returns null for anything else.
 */
export function parseInstant(text: string, defaultTimeZone: string): Instant | null {
  const m = ISO.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '0', frac = '', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const wallAsUtc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const check = new Date(wallAsUtc);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  let offsetMinutes: number;
  if (zone === undefined) {
    // The offset at the wall time: guess with the offset at that instant taken as UTC, then settle.
    let guess = zoneOffsetMinutes(defaultTimeZone, wallAsUtc);
    guess = zoneOffsetMinutes(defaultTimeZone, wallAsUtc - guess * 60_000);
    offsetMinutes = guess;
  } else if (zone === 'Z' || zone === 'z') {
    offsetMinutes = 0;
  } else {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2, 4) || '0');
    if (oh > 18 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const utcMs = wallAsUtc - offsetMinutes * 60_000;
  // Four-digit years in UTC too, so that the instant has an ISO text the database reads.
  if (utcMs < FIRST_INSTANT_MS || utcMs > LAST_INSTANT_MS) return null;
  return { utcMs, offsetMinutes };
}

/**
 * The first instant of the calendar month that `nowMs` falls in, in a time zone: midnight of the
 * 1st on the zone's wall clock, as UTC milliseconds (the offset is taken at that midnight).
 */
export function monthStartUtcMs(timeZone: string, nowMs: number): number {
  const wall = new Date(nowMs + zoneOffsetMinutes(timeZone, nowMs) * 60_000);
  const wallStart = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), 1);
  let utc = wallStart - zoneOffsetMinutes(timeZone, wallStart) * 60_000;
  // The offset at the month's start may differ from the one guessed from its wall time.
  utc = wallStart - zoneOffsetMinutes(timeZone, utc) * 60_000;
  return utc;
}

/**
 * Whether the text is a day of the calendar, YYYY-MM-DD, of the years 1000 to 9998 (so that the day
 * after it is one too): 2026-02-30 and 2026-13-01 are not.
 */
export function isCalendarDay(text: string): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text) || text < '1000' || text >= '9999') return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

/** The UTC instant of a local wall time (a day and milliseconds into it) in a time zone. */
export function localInstantMs(day: string, msOfDay: number, timeZone: string): number {
  const wall = Date.parse(`${day}T00:00:00Z`) + msOfDay;
  let guess = zoneOffsetMinutes(timeZone, wall);
  guess = zoneOffsetMinutes(timeZone, wall - guess * 60_000);
  return wall - guess * 60_000;
}

/** A day moved by a number of days. */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
