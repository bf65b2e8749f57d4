/**
 * Money is an integer count of minor units (cents) everywhere inside the service.
 * Decimal amounts from the wire are converted through their decimal text, never through
 * float arithmetic, so 2.45 is exactly 245 and 0.1 + 0.2 never happens.
 */

/** Minor units per major unit for the currencies we serve (ISO 4217 exponent). */
const EXPONENTS: Readonly<Record<string, number>> = {
  BHD: 3,
  JOD: 3,
  KWD: 3,
  OMR: 3,
  TND: 3,
  JPY: 0,
  KRW: 0,
  ISK: 0,
  CLP: 0,
  VND: 0,
};

export function currencyExponent(currencyIso: string): number {
  return EXPONENTS[currencyIso.toUpperCase()] ?? 2;
}

/** A decimal number kept exactly: value = units / 10^scale. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Reads a decimal from its text or from a JSON number (through the number's shortest
 * round-trip text, which is what the sender wrote for any amount of up to 15 digits).
 * Returns null for anything that is not a finite decimal.
 */
export function parseDecimal(input: string | number): Decimal | null {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    text = String(input);
  } else {
    text = input.trim();
  }
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return null;
  const [, sign = '', intPart = '', fracPart = '', expPart] = m;
  if (intPart === '' && fracPart === '') return null;
  const exp = expPart === undefined ? 0 : Number(expPart);
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 40) return null;
  let digits = (intPart + fracPart).replace(/^0+(?=\d)/, '');
  let scale = fracPart.length - exp;
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  if (digits.length > 60) return null;
  const units = BigInt(digits === '' ? '0' : digits) * (sign === '-' ? -1n : 1n);
  return normalise({ units, scale });
}

function normalise(d: Decimal): Decimal {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

/** Number of decimal places the value really has (2.50 has 1). */
export function decimalPlaces(d: Decimal): number {
  return normalise(d).scale;
}

/** n / d rounded half away from zero, for integers of any size. */
export function divRoundHalfAwayFromZero(n: bigint, d: bigint): bigint {
  if (d === 0n) throw new RangeError('division by zero');
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = an / ad;
  const r = an % ad;
  const rounded = r * 2n >= ad ? q + 1n : q;
  return negative ? -rounded : rounded;
}

/** Converts to minor units at the currency's exponent, rounding half away from zero. */
export function decimalToMinor(d: Decimal, exponent = 2): bigint {
  const shift = exponent - d.scale;
  if (shift >= 0) return d.units * 10n ** BigInt(shift);
  return divRoundHalfAwayFromZero(d.units, 10n ** BigInt(-shift));
}

/** Minor units as a safe JavaScript integer; throws when the value leaves the safe range. */
export function toSafeMinor(v: bigint): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new RangeError('amount out of range');
  return n;
}

/**
 * Decimal major-unit amount (POS v3 wire) to minor units, rounding half away from zero.
 * Returns null when the input is not a decimal or is out of the safe integer range.
 */
export function majorToMinor(input: string | number, exponent = 2): number | null {
  const d = parseDecimal(input);
  if (!d) return null;
  const minor = Number(decimalToMinor(d, exponent));
  return Number.isSafeInteger(minor) ? minor : null;
}

/** The major-unit text of a minor amount: 147 -> "1.47", -5 -> "-0.05". */
export function minorToMajorText(minor: number | bigint, exponent = 2): string {
  const v = BigInt(minor);
  const negative = v < 0n;
  const abs = (negative ? -v : v).toString().padStart(exponent + 1, '0');
  const text = exponent === 0 ? abs : `${abs.slice(0, -exponent)}.${abs.slice(-exponent)}`;
  return negative ? `-${text}` : text;
}

/**
 * The major-unit amount as a JSON number for the POS v3 wire (1.47). The number is built from
 * the exact decimal text, so its shortest representation is exactly that text.
 */
export function minorToMajor(minor: number | bigint, exponent = 2): number {
  return Number(minorToMajorText(minor, exponent));
}

/** value * numerator / denominator, rounded half away from zero (percentages, shares). */
export function mulDivRound(value: number, numerator: number, denominator: number): number {
  return toSafeMinor(divRoundHalfAwayFromZero(BigInt(value) * BigInt(numerator), BigInt(denominator)));
}
