import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Decimal,
  decimalPlaces,
  decimalToMinor,
  divRoundHalfAwayFromZero,
  minorOfNumber,
  parseDecimal,
  productToMinor,
} from '../../src/shared/money.js';

const RUNS = 5000;

/** The value of a decimal in its normal form: no trailing zeros after the point, zero as 0/0. */
function normal(units: bigint, scale: number): Decimal {
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  if (units === 0n) return { units: 0n, scale: 0 };
  return { units, scale };
}

/** The grammar of a decimal amount, read by a regular expression: the reference reader. */
function referenceRead(text: string): Decimal | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m) return null;
  const [, sign = '', intPart = '', fracPart = '', expPart] = m;
  if (intPart === '' && fracPart === '') return null;
  const exp = expPart === undefined ? 0 : Number(expPart);
  if (Math.abs(exp) > 40) return null;
  let digits = (intPart + fracPart).replace(/^0+(?=\d)/, '');
  let scale = fracPart.length - exp;
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  if (digits.length > 60) return null;
  return normal(BigInt(digits) * (sign === '-' ? -1n : 1n), scale);
}

const decimalArb = fc.record({
  units: fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }),
  scale: fc.integer({ min: 0, max: 12 }),
});

function plainText(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

describe('amounts are read as exact decimals', () => {
  it('a decimal text gives its exact value, whatever leading zeros, trailing zeros, sign or exponent it is written with', () => {
    fc.assert(
      fc.property(
        decimalArb,
        fc.nat({ max: 3 }),
        fc.nat({ max: 3 }),
        fc.integer({ min: -5, max: 5 }),
        fc.boolean(),
        ({ units, scale }, leading, trailing, exp, plusSign) => {
          const expected = normal(units, scale);
          // The same value with more places, then with leading zeros and a sign.
          const more = units * 10n ** BigInt(trailing);
          let text = plainText(more, scale + trailing);
          if (leading > 0) {
            const zeros = '0'.repeat(leading);
            text = text.startsWith('-') ? `-${zeros}${text.slice(1)}` : zeros + text;
          }
          if (plusSign && !text.startsWith('-')) text = `+${text}`;
          expect(parseDecimal(text)).toEqual(expected);
          // The same value as a mantissa and an exponent.
          const places = scale + trailing + exp;
          if (places >= 0) expect(parseDecimal(`${plainText(more, places)}e${exp}`)).toEqual(expected);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('text that is not a decimal is refused, and any text is read as the reference grammar reads it', () => {
    for (const bad of [
      '',
      ' ',
      '.',
      '-',
      '+',
      '1e',
      '1e+',
      '--1',
      '1.2.3',
      '1,5',
      'abc',
      '1e41',
      'NaN',
      'Infinity',
      '0x10',
    ]) {
      expect(parseDecimal(bad)).toBeNull();
    }
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'0123456789+-.eE '.split('')), maxLength: 12 }),
        (text) => {
          expect(parseDecimal(text)).toEqual(referenceRead(text));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a JSON number is read as the decimal of its shortest text', () => {
    const fromText = fc
      .tuple(fc.integer({ min: -999_999_999, max: 999_999_999 }), fc.integer({ min: 0, max: 9 }))
      .map(([units, scale]) => Number(plainText(BigInt(units), scale)));
    fc.assert(
      fc.property(fc.oneof(fromText, fc.double({ noNaN: true, noDefaultInfinity: true })), (x) => {
        expect(parseDecimal(x)).toEqual(referenceRead(String(x)));
      }),
      { numRuns: RUNS },
    );
    expect(parseDecimal(2.45)).toEqual({ units: 245n, scale: 2 });
    expect(parseDecimal(0.1)).toEqual({ units: 1n, scale: 1 });
    expect(parseDecimal(-0)).toEqual({ units: 0n, scale: 0 });
    expect(parseDecimal(Number.NaN)).toBeNull();
    expect(parseDecimal(Number.POSITIVE_INFINITY)).toBeNull();
  });

  it('a JSON number read without bigint gives the minor units the decimal gives, or leaves it to the decimal', () => {
    const fromText = fc
      .tuple(fc.integer({ min: 0, max: 999_999_999 }), fc.integer({ min: 0, max: 7 }))
      .map(([units, scale]) => Number(plainText(BigInt(units), scale)));
    fc.assert(
      fc.property(
        fc.oneof(fromText, fc.double({ noNaN: true, noDefaultInfinity: true })),
        fc.integer({ min: 0, max: 4 }),
        (x, exponent) => {
          const fast = minorOfNumber(x, exponent);
          const d = parseDecimal(x);
          const fits = d !== null && d.units >= 0n && decimalPlaces(d) <= exponent;
          const minor = fits ? Number(decimalToMinor(d, exponent)) : null;
          if (fast !== null) expect(Object.is(fast, minor)).toBe(true);
          // Every price a till sends, below 10^9 with no more places than the currency has.
          if (minor !== null && x < 1e9) expect(fast).toBe(minor);
        },
      ),
      { numRuns: RUNS },
    );
    expect(minorOfNumber(2.45, 2)).toBe(245);
    expect(minorOfNumber(19, 0)).toBe(19);
    expect(minorOfNumber(-0, 2)).toBe(0);
    expect(Object.is(minorOfNumber(-0, 2), 0)).toBe(true);
    expect(minorOfNumber(2.455, 2)).toBeNull();
    expect(minorOfNumber(-1.5, 2)).toBeNull();
  });
});

describe('a line gross is unit price times quantity, rounded half away from zero once', () => {
  it('the worked cases', () => {
    const d = (v: string) => parseDecimal(v) as Decimal;
    expect(productToMinor(d('2.50'), d('0.245'), 2)).toBe(61); // 0.6125
    expect(productToMinor(d('0.01'), d('0.5'), 2)).toBe(1); // 0.005
    expect(productToMinor(d('-0.01'), d('0.5'), 2)).toBe(-1);
    expect(productToMinor(d('2.5'), d('3'), 2)).toBe(750);
    expect(productToMinor(d('1.005'), d('1'), 2)).toBe(101);
    expect(productToMinor(d('1.004'), d('1'), 2)).toBe(100);
    expect(productToMinor(d('3'), d('1'), 0)).toBe(3);
    expect(productToMinor(d('1.2345'), d('1'), 3)).toBe(1235);
  });

  it('equals the exact product rounded once, for small and large factors alike', () => {
    const factor = fc.oneof(
      fc.record({
        units: fc.bigInt({ min: -(2n ** 26n), max: 2n ** 26n }),
        scale: fc.integer({ min: 0, max: 8 }),
      }),
      decimalArb,
    );
    fc.assert(
      fc.property(factor, factor, fc.constantFrom(0, 2, 3), (a, b, exponent) => {
        const exact = { units: a.units * b.units, scale: a.scale + b.scale };
        const shift = exponent - exact.scale;
        const expected =
          shift >= 0
            ? exact.units * 10n ** BigInt(shift)
            : divRoundHalfAwayFromZero(exact.units, 10n ** BigInt(-shift));
        expect(productToMinor(a, b, exponent)).toBe(Number(expected));
        expect(decimalToMinor(exact, exponent)).toBe(expected);
      }),
      { numRuns: RUNS },
    );
  });
});
