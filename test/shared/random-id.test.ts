import { describe, expect, it } from 'vitest';
import { newReceiptId } from '../../src/receipts/receipt.store.js';
import { randomBase64Url, timeOrderedHex, timeOrderedUuid } from '../../src/shared/random-id.js';

describe('random ids', () => {
  it('are base64url text of the bytes asked for, never the same twice across refills of the pool', () => {
    const ids = Array.from({ length: 2_000 }, () => randomBase64Url(16));
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(randomBase64Url(1)).toMatch(/^[A-Za-z0-9_-]{2}$/);
    expect(randomBase64Url(64)).toMatch(/^[A-Za-z0-9_-]{86}$/);
  });

  it('use every bit: over many ids each of the 128 bits is set about half the time', () => {
    const ones = new Array<number>(128).fill(0);
    const n = 4_000;
    for (let i = 0; i < n; i++) {
      const bytes = Buffer.from(randomBase64Url(16), 'base64url');
      for (let bit = 0; bit < 128; bit++)
        if ((bytes[bit >> 3] ?? 0) & (1 << (bit & 7))) ones[bit] = (ones[bit] ?? 0) + 1;
    }
    // 4,000 fair coins: the count lies within 6 standard deviations (about 190) of 2,000.
    for (const count of ones) expect(Math.abs(count - n / 2)).toBeLessThan(190);
  });

  it('refuses a size outside 1 to 64 bytes', () => {
    for (const bytes of [0, -1, 65, 1.5]) expect(() => randomBase64Url(bytes)).toThrow(RangeError);
  });
});

describe('ids that grow with time (UUID version 7)', () => {
  const at = Date.UTC(2026, 11, 7, 23, 5, 0, 123);

  it('begin with the time in milliseconds, then the version 7 and the variant of RFC 9562', () => {
    const id = timeOrderedHex(at);
    expect(id).toMatch(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect(Number.parseInt(id.slice(0, 12), 16)).toBe(at);
    expect(timeOrderedHex(0).slice(0, 12)).toBe('000000000000');
  });

  it('sort in the order of their times, and are never the same twice within one millisecond', () => {
    const times = [at - 86_400_000, at - 1, at, at + 1, at + 3_600_000];
    const ids = times.map((t) => timeOrderedHex(t));
    expect([...ids].sort()).toEqual(ids);
    const same = Array.from({ length: 5_000 }, () => timeOrderedHex(at));
    expect(new Set(same).size).toBe(same.length);
  });

  it('keep 74 random bits: each of them is set about half the time', () => {
    const n = 4_000;
    const ones = new Array<number>(80).fill(0);
    for (let i = 0; i < n; i++) {
      const bits = BigInt(`0x${timeOrderedHex(at).slice(12)}`);
      for (let bit = 0; bit < 80; bit++) if ((bits >> BigInt(bit)) & 1n) ones[bit] = (ones[bit] ?? 0) + 1;
    }
    // Bits 62 and 63 are the variant (10), bits 76 to 79 the version (0111); the others are random.
    const fixed = new Map([
      [62, 0],
      [63, n],
      [76, n],
      [77, n],
      [78, n],
      [79, 0],
    ]);
    for (let bit = 0; bit < 80; bit++) {
      const expected = fixed.get(bit);
      if (expected !== undefined) expect(ones[bit]).toBe(expected);
      else expect(Math.abs((ones[bit] ?? 0) - n / 2)).toBeLessThan(190);
    }
  });

  it('in the usual form of a UUID, 8-4-4-4-12 hex digits of the same layout', () => {
    const id = timeOrderedUuid(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it("a receipt's id: the time in 12 hex digits, then 128 random bits in base64url, never the same twice", () => {
    const ids = Array.from({ length: 2_000 }, () => newReceiptId(at));
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{12}[A-Za-z0-9_-]{22}$/);
      expect(Number.parseInt(id.slice(0, 12), 16)).toBe(at);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([newReceiptId(at + 1), newReceiptId(at)].sort()[0]?.slice(0, 12)).toBe(
      at.toString(16).padStart(12, '0'),
    );
  });

  it('refuse a time before 1970 or past the 48 bits', () => {
    for (const t of [-1, 2 ** 48, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => timeOrderedHex(t)).toThrow(RangeError);
      expect(() => newReceiptId(t)).toThrow(RangeError);
    }
  });
});
