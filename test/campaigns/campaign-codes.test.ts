import { describe, expect, it } from 'vitest';
import {
  CODE_ALPHABET,
  codesCsv,
  distinctCodes,
  normaliseCode,
  randomCode,
  uniqueCodeKey,
} from '../../src/campaigns/campaign-codes.js';

/** docs/decisions.md, "Unique codes": what a code is made of and how it is written out. */
describe('unique codes, pure', () => {
  it('the alphabet has no look-alike characters (no 0/O, no 1/I/L) and no character twice', () => {
    expect(CODE_ALPHABET).not.toMatch(/[01OIL]/);
    expect(new Set(CODE_ALPHABET).size).toBe(CODE_ALPHABET.length);
    expect(CODE_ALPHABET).toMatch(/^[A-Z2-9]+$/);
  });

  it('a code is the prefix and length characters of the alphabet; every character of it is drawn', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const code = randomCode('X-', 12);
      expect(code).toHaveLength(14);
      expect(code.startsWith('X-')).toBe(true);
      for (const ch of code.slice(2)) {
        expect(CODE_ALPHABET).toContain(ch);
        seen.add(ch);
      }
    }
    expect(seen.size).toBe(CODE_ALPHABET.length);
  });

  it('a batch is count distinct codes, none of those already taken', () => {
    const taken = new Set(distinctCodes('', 6, 500));
    expect(taken.size).toBe(500);
    const more = distinctCodes('', 6, 500, taken);
    expect(new Set(more).size).toBe(500);
    for (const c of more) expect(taken.has(c)).toBe(false);
  });

  it('codes compare in upper case without surrounding blanks; the engine key of a campaign is no text a till can send', () => {
    expect(normaliseCode('  spring-7k3q ')).toBe('SPRING-7K3Q');
    expect(uniqueCodeKey(7)).toContain('\u0000');
    expect(uniqueCodeKey(7)).not.toBe(uniqueCodeKey(8));
  });

  it('the CSV has a header, quotes what needs quoting, and never lets a name read as a formula', () => {
    const csv = codesCsv([
      { code: 'A2B3C4', batchId: 1, redeemedAt: null, terminal: null, outlet: null, basketId: null },
      {
        code: 'D5E6F7',
        batchId: 2,
        redeemedAt: '2026-03-02T11:00:00.000Z',
        terminal: '=HYPERLINK("x")',
        outlet: 'Main street, north',
        basketId: '-42',
      },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'code,batch,redeemed_at,terminal,outlet,basket',
      'A2B3C4,1,,,,',
      `D5E6F7,2,2026-03-02T11:00:00.000Z,"'=HYPERLINK(""x"")","Main street, north",'-42`,
      '',
    ]);
  });
});
