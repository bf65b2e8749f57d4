import { describe, expect, it } from 'vitest';
import { formatDate, formatLocalTime, formatMoney, formatNumber } from '../../src/receipts/receipt-text.js';

describe("the receipt's numbers and times, in the customer's language", () => {
  it("formats amounts from their exact decimal text with the currency's minor unit", () => {
    // The amount and the currency are kept together by a no-break space (U+00A0), as CLDR writes it.
    expect(formatMoney(123_456, 'EUR', 'de')).toBe('1.234,56\u00a0€');
    expect(formatMoney(123_456, 'EUR', 'en')).toBe('€1,234.56');
    expect(formatMoney(-5, 'EUR', 'de')).toBe('-0,05\u00a0€');
    expect(formatMoney(1_234, 'JPY', 'en')).toBe('JP¥1,234');
    expect(formatMoney(12_345, 'KWD', 'de')).toBe('12,345\u00a0KWD');
    // Asked again in the other language, each keeps its own format.
    expect(formatMoney(123_456, 'EUR', 'en')).toBe('€1,234.56');
    expect(formatMoney(123_456, 'EUR', 'de')).toBe('1.234,56\u00a0€');
  });

  it('refuses a currency code that is not one, each time it is asked', () => {
    expect(() => formatMoney(1, 'EU', 'de')).toThrow(RangeError);
    expect(() => formatMoney(1, 'EU', 'de')).toThrow(RangeError);
  });

  it("formats quantities, the till's local time of the purchase and dates", () => {
    expect(formatNumber(1.2345, 'de')).toBe('1,235');
    expect(formatNumber(1234.5, 'en')).toBe('1,234.5');
    const purchase = new Date('2026-03-02T15:59:00Z');
    expect(formatLocalTime(purchase, 60, 'de')).toBe('02.03.2026, 16:59');
    expect(formatLocalTime(purchase, 60, 'en')).toBe('2 Mar 2026, 16:59');
    // A date is the day on the merchant's calendar: 23:30 UTC is already 3 March in Berlin.
    expect(formatDate(new Date('2026-03-02T23:30:00Z'), 'de', 'Europe/Berlin')).toBe('03.03.2026');
    expect(formatDate(new Date('2026-03-02T23:30:00Z'), 'en', 'Europe/Berlin')).toBe('3 Mar 2026');
    expect(formatDate(new Date('2026-03-02T23:30:00Z'), 'de', 'UTC')).toBe('02.03.2026');
    expect(formatDate(new Date('2026-03-03T04:30:00Z'), 'en', 'America/New_York')).toBe('2 Mar 2026');
  });
});
