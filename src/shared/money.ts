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

/** ISO 4217 codes of the currencies in circulation, as the JavaScript runtime knows them. */
const KNOWN_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** Whether a three-letter code names a currency in circulation (ISO 4217). */
export function isKnownCurrency(currencyIso: string): boolean {
  return KNOWN_CURRENCIES.has(currencyIso.toUpperCase());
}

export function currencyExponent(currencyIso: string): number {
  return EXPONENTS[currencyIso.toUpperCase()] ?? 2;
}

/** A decimal number kept exactly: value = units / 10^scale. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

const DIGIT_0 = 48;
const DIGIT_9 = 57;

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9;
}

/** Index after the run of digits that starts at `i`. */
function digitsEnd(text: string, i: number): number {
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Reads a decimal from its text (`[+-]digits[.digits][e[+-]digits]`) or from a JSON number
 * (through the number's shortest round-trip text, which is what the sender wrote for any amount
 * of up to 15 digits). Returns null for anything that is not a finite decimal. The result is
 * normalised: no trailing zeros after the point (2.50 is units 25, scale 1).
 */
export function parseDecimal(input: string | number): Decimal | null {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    return decimalOfNumber(input) ?? parseDecimalText(String(input));
  }
  return parseDecimalText(input.trim());
}

/** Powers of ten that are exact doubles, for the few decimal places amounts have. */
const SCALES = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/**
 * The decimal a JSON number was written as, without going through its text, when it has at
 * most six decimal places and less than 10^9 in magnitude (every amount a till sends): the
 * fewest decimal places k for which round(x * 10^k) / 10^k gives x back exactly. The division
 * is correctly rounded, so the test holds exactly when that k-place decimal reads as x, which
 * makes it the number's shortest text. Null otherwise (the caller reads the text).
 */
function decimalOfNumber(x: number): Decimal | null {
  if (Number.isSafeInteger(x)) return { units: BigInt(x), scale: 0 };
  if (!(Math.abs(x) < 1e9)) return null;
  for (let k = 1; k < SCALES.length; k++) {
    const scale = SCALES[k] as number;
    const m = Math.round(x * scale);
    if (m / scale === x) return { units: BigInt(m), scale: k };
  }
  return null;
}

/**
 * decimalToMinor(parseDecimal(x), exponent) as a number, without bigint, for a JSON number from 0
 * up to 10^9 with at most `exponent` decimal places (every price a till sends): the same fewest
 * places k as decimalOfNumber, then its k-place units times 10^(exponent - k), exact as a double
 * while it is a safe integer. Null for any other number (the caller reads it the general way,
 * with its refusals). A sortiment bulk upload reads two prices per article.
 */
export function minorOfNumber(x: number, exponent: number): number | null {
  if (x === 0) return 0;
  if (!(x > 0 && x < 1e9) || exponent >= SCALES.length) return null;
  for (let k = 0; k <= exponent; k++) {
    const scale = SCALES[k] as number;
    const m = Math.round(x * scale);
    if (m / scale !== x) continue;
    const minor = m * (SCALES[exponent - k] as number);
    return Number.isSafeInteger(minor) ? minor : null;
  }
  return null;
}

function parseDecimalText(text: string): Decimal | null {
  let i = 0;
  const first = text.charCodeAt(0);
  const negative = first === 45; // '-'
  if (negative || first === 43) i = 1; // '+'
  const intStart = i;
  i = digitsEnd(text, i);
  const intPart = text.slice(intStart, i);
  let fracPart = '';
  if (text.charCodeAt(i) === 46) {
    // '.'
    const fracStart = i + 1;
    i = digitsEnd(text, fracStart);
    fracPart = text.slice(fracStart, i);
  }
  if (intPart === '' && fracPart === '') return null;
  let exp = 0;
  if (i < text.length) {
    const e = text.charCodeAt(i);
    if (e !== 101 && e !== 69) return null; // 'e', 'E'
    let expStart = i + 1;
    const sign = text.charCodeAt(expStart);
    if (sign === 45 || sign === 43) expStart += 1;
    const expEnd = digitsEnd(text, expStart);
    if (expEnd === expStart || expEnd !== text.length) return null;
    exp = Number(text.slice(i + 1, expEnd));
    if (!Number.isSafeInteger(exp) || Math.abs(exp) > 40) return null;
  }
  let digits = intPart + fracPart;
  let lead = 0;
  while (lead < digits.length - 1 && digits.charCodeAt(lead) === DIGIT_0) lead++;
  if (lead > 0) digits = digits.slice(lead);
  let scale = fracPart.length - exp;
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  if (digits.length > 60) return null;
  // Normalise on the text: drop trailing zeros after the point.
  let end = digits.length;
  while (scale > 0 && end > 1 && digits.charCodeAt(end - 1) === DIGIT_0) {
    end--;
    scale--;
  }
  const magnitude = BigInt(end === digits.length ? digits : digits.slice(0, end));
  if (magnitude === 0n) return { units: 0n, scale: 0 };
  return { units: negative ? -magnitude : magnitude, scale };
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
  if (shift === 0) return d.units;
  if (shift > 0) return d.units * powerOfTen(shift);
  return divRoundHalfAwayFromZero(d.units, powerOfTen(-shift));
}

const POWERS_OF_TEN: bigint[] = Array.from({ length: 20 }, (_, n) => 10n ** BigInt(n));

/** 10^n as a bigint (the small ones from a table: amounts are converted on every basket). */
export function powerOfTen(n: number): bigint {
  return POWERS_OF_TEN[n] ?? 10n ** BigInt(n);
}

/** Powers of ten that are exact doubles (up to 10^15), for exact integer arithmetic in numbers. */
const EXACT_POWERS = Array.from({ length: 16 }, (_, n) => 10 ** n);
/** Factors up to this size multiply exactly in numbers (the product stays below 2^52). */
const SMALL_FACTOR = 2 ** 26;

/**
 * a × b in minor units at the currency's exponent, rounded half away from zero once: a line's
 * gross (unit price times quantity) from the exact product. With the usual small amounts the
 * integers are multiplied and divided in numbers, where integers below 2^53 are exact; larger
 * ones go through bigints. The caller checks that the result is a safe integer.
 */
export function productToMinor(a: Decimal, b: Decimal, exponent: number): number {
  const au = Number(a.units);
  const bu = Number(b.units);
  const shift = exponent - a.scale - b.scale;
  if (Math.abs(au) <= SMALL_FACTOR && Math.abs(bu) <= SMALL_FACTOR && Math.abs(shift) < EXACT_POWERS.length) {
    const product = au * bu;
    if (product === 0) return 0; // never -0
    const power = EXACT_POWERS[Math.abs(shift)] as number;
    if (shift >= 0) return product * power;
    const rest = product % power;
    const quotient = (product - rest) / power;
    if (2 * Math.abs(rest) < power) return quotient;
    return product < 0 ? quotient - 1 : quotient + 1;
  }
  return Number(decimalToMinor({ units: a.units * b.units, scale: a.scale + b.scale }, exponent));
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
