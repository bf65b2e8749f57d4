import { describe, expect, it } from 'vitest';
import { randomBase64Url } from '../../src/shared/random-id.js';

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
