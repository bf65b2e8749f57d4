import { describe, expect, it, vi } from 'vitest';
import { isCalendarDay, monthStartUtcMs, parseInstant, zoneOffsetMinutes } from '../../src/shared/time.js';

/**
 * The offset the platform names in a date's parts (`GMT`, `GMT+05:45`, `GMT-03:30`), in minutes; the
 * text itself when it is not of that form.
 */
function namedOffset(parts: Intl.DateTimeFormat, at: number): number | string {
  const text = parts.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(text);
  if (!m) return text;
  const minutes = m[1] === undefined ? 0 : Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

describe("a time zone's offset", () => {
  it('follows daylight saving time, the same zone asked again at other instants', () => {
    // Europe/Berlin: +01:00 until 2026-03-29 01:00 UTC, +02:00 until 2026-10-25 01:00 UTC.
    expect(zoneOffsetMinutes('Europe/Berlin', Date.parse('2026-03-29T00:59:59Z'))).toBe(60);
    expect(zoneOffsetMinutes('Europe/Berlin', Date.parse('2026-03-29T01:00:00Z'))).toBe(120);
    expect(zoneOffsetMinutes('Europe/Berlin', Date.parse('2026-10-25T00:59:59Z'))).toBe(120);
    expect(zoneOffsetMinutes('Europe/Berlin', Date.parse('2026-10-25T01:00:00Z'))).toBe(60);
    expect(zoneOffsetMinutes('America/New_York', Date.parse('2026-07-01T12:00:00Z'))).toBe(-240);
    expect(zoneOffsetMinutes('Asia/Kolkata', Date.parse('2026-07-01T12:00:00Z'))).toBe(330);
    expect(zoneOffsetMinutes('UTC', Date.parse('2026-07-01T12:00:00Z'))).toBe(0);
  });

  it('has its minutes and sign where the offset is not whole hours, east and west of UTC', () => {
    expect(zoneOffsetMinutes('Asia/Kathmandu', Date.parse('2026-07-01T12:00:00Z'))).toBe(345);
    expect(zoneOffsetMinutes('Pacific/Chatham', Date.parse('2026-01-15T12:00:00Z'))).toBe(825);
    expect(zoneOffsetMinutes('America/St_Johns', Date.parse('2026-01-15T12:00:00Z'))).toBe(-210);
    expect(zoneOffsetMinutes('America/St_Johns', Date.parse('2026-07-15T12:00:00Z'))).toBe(-150);
  });

  it("is, for every zone the platform knows, the offset the platform names in a date's parts", () => {
    const zones = Intl.supportedValuesOf('timeZone');
    expect(zones.length).toBeGreaterThan(300);
    // Two instants in each month of 2025 to 2027, so that each zone is asked in its summer and its
    // winter time (the instants of the changes are the Berlin test's above).
    const instants: number[] = [];
    for (let month = 0; month < 36; month++) {
      instants.push(Date.UTC(2025, month, 1, 0, 30), Date.UTC(2025, month, 28, 13, 59, 59, 999));
    }
    for (const timeZone of zones) {
      const parts = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
      for (const at of instants) {
        const named = namedOffset(parts, at);
        expect(named, `${timeZone} ${named}`).toBeTypeOf('number');
        expect(zoneOffsetMinutes(timeZone, at), `${timeZone} at ${new Date(at).toISOString()}`).toBe(named);
      }
    }
  });

  it('asked again and again within an hour, also the hour of a change and those around it, is each time the offset the platform names', () => {
    const HOUR = 3_600_000;
    let changes = 0;
    let midHour = 0;
    for (const timeZone of Intl.supportedValuesOf('timeZone')) {
      const parts = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
      // The changes of the zone's offset in 2026, each by the hour it happens in (its two ends
      // differ) or at the start of (it differs from the hour before): its days whose two ends
      // differ, then the hours of those days.
      const hours: number[] = [];
      for (let day = Date.UTC(2026, 0, 1); day < Date.UTC(2027, 0, 1); day += 24 * HOUR) {
        if (namedOffset(parts, day - 1) === namedOffset(parts, day + 24 * HOUR - 1)) continue;
        for (let h = day; h < day + 24 * HOUR; h += HOUR) {
          if (namedOffset(parts, h - 1) !== namedOffset(parts, h + HOUR - 1)) hours.push(h);
        }
      }
      // Each such hour asked through, from the hour before it to the hour after it, each instant
      // twice, so that an offset kept for an hour is read back where it holds and nowhere else.
      for (const h of hours) {
        changes++;
        if (namedOffset(parts, h) !== namedOffset(parts, h + HOUR - 1)) midHour++;
        for (let at = h - HOUR + 1; at < h + 2 * HOUR; at += 7 * 60_000 + 1) {
          for (const asked of [at, at]) {
            expect(
              zoneOffsetMinutes(timeZone, asked),
              `${timeZone} at ${new Date(asked).toISOString()}`,
            ).toBe(namedOffset(parts, asked));
          }
        }
      }
    }
    // Summer time begins and ends in 2026 in many zones, some of them within an hour (St. John's
    // at 05:30 and 04:30 UTC, Lord Howe Island by half an hour at 15:30 UTC in October).
    expect(changes).toBeGreaterThan(100);
    expect(midHour).toBeGreaterThan(0);
  });

  it('of a zone the platform does not know is refused each time it is asked', () => {
    expect(() => zoneOffsetMinutes('Mars/Olympus_Mons', 0)).toThrow(RangeError);
    expect(() => zoneOffsetMinutes('Mars/Olympus_Mons', 0)).toThrow(RangeError);
  });
});

describe('a date-time without an offset (as some tills send it)', () => {
  it("read again and again on the merchant's wall clock, its hour asked with its instant's, asks the platform for the zone's offset at most once a reading", () => {
    // A time without an offset asks for two hours in turn (its wall clock's, then its instant's):
    // the later is kept, the earlier formatted each time, never two for one reading.
    const text = '2031-05-14T09:30:00';
    const expected = { utcMs: Date.parse('2031-05-14T07:30:00Z'), offsetMinutes: 120 };
    // `format` is a getter of the prototype (it hands out the bound function), read at every call.
    const prototype = Intl.DateTimeFormat.prototype as unknown as { readonly format: unknown };
    const format = vi.spyOn(prototype, 'format', 'get');
    try {
      for (let i = 0; i < 3; i++) expect(parseInstant(text, 'Europe/Berlin')).toEqual(expected);
      format.mockClear();
      for (let i = 0; i < 10; i++) expect(parseInstant(text, 'Europe/Berlin')).toEqual(expected);
      expect(format.mock.calls.length).toBeLessThanOrEqual(10);
    } finally {
      format.mockRestore();
    }
  });

  it("is read on the merchant's wall clock, on both sides of the change to summer time", () => {
    expect(parseInstant('2026-03-28T23:30:00', 'Europe/Berlin')).toEqual({
      utcMs: Date.parse('2026-03-28T22:30:00Z'),
      offsetMinutes: 60,
    });
    expect(parseInstant('2026-03-29T23:30:00', 'Europe/Berlin')).toEqual({
      utcMs: Date.parse('2026-03-29T21:30:00Z'),
      offsetMinutes: 120,
    });
  });
});

describe("the first instant of the merchant's month", () => {
  it("is midnight of the 1st on the zone's wall clock, with the offset in force then", () => {
    // 2026-04-01 00:00 in Berlin is +02:00; the month of 2026-03-31T22:30Z is April there.
    expect(monthStartUtcMs('Europe/Berlin', Date.parse('2026-03-31T22:30:00Z'))).toBe(
      Date.parse('2026-03-31T22:00:00Z'),
    );
    // 2026-03-01 00:00 in Berlin is +01:00, although the instant asked is in summer time.
    expect(monthStartUtcMs('Europe/Berlin', Date.parse('2026-03-31T12:00:00Z'))).toBe(
      Date.parse('2026-02-28T23:00:00Z'),
    );
    expect(monthStartUtcMs('America/New_York', Date.parse('2026-11-01T03:00:00Z'))).toBe(
      Date.parse('2026-10-01T04:00:00Z'),
    );
  });
});

describe('a day of the calendar', () => {
  it('is YYYY-MM-DD of a date that exists: a 29th of February only in a leap year, no 13th month', () => {
    for (const day of ['2026-12-04', '2028-02-29', '1000-01-01', '9998-12-31'])
      expect(isCalendarDay(day)).toBe(true);
    for (const text of [
      '2026-02-29',
      '2026-02-30',
      '2026-13-01',
      '2026-00-10',
      '0000-00-00',
      '9999-12-31',
      '2026-1-5',
      '2026-12-04T00:00',
      '',
    ])
      expect(isCalendarDay(text)).toBe(false);
  });
});
