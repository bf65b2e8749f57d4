import { describe, expect, it } from 'vitest';
import { dateTime } from '../../src/portal/layout.js';

describe("the portal's lists show times on the merchant's wall clock, in the user's language", () => {
  it('each language and time zone keeps its own format, however often and in whatever order asked', () => {
    const at = '2026-07-01T12:05:00Z';
    expect(dateTime(at, 'de', 'Europe/Berlin')).toBe('01.07.2026, 14:05');
    expect(dateTime(at, 'en', 'Europe/Berlin')).toBe('1 Jul 2026, 14:05');
    expect(dateTime(at, 'de', 'America/New_York')).toBe('01.07.2026, 08:05');
    expect(dateTime(at, 'en', 'America/New_York')).toBe('1 Jul 2026, 08:05');
    expect(dateTime(at, 'de', 'Europe/Berlin')).toBe('01.07.2026, 14:05');
    // Winter time in Berlin: +01:00.
    expect(dateTime('2026-01-15T12:05:00Z', 'de', 'Europe/Berlin')).toBe('15.01.2026, 13:05');
    expect(dateTime(null, 'de', 'Europe/Berlin')).toBe('');
  });
});
