import {
  type Decimal,
  currencyExponent,
  majorToMinor,
  parseDecimal,
  powerOfTen,
  productToMinor,
} from '../shared/money.js';
import { AppError } from '../shared/errors.js';
import { type Instant, parseInstant } from '../shared/time.js';
import type { BasketBody } from './basket.types.js';

/** A basket as the rest of the service sees it: exact decimals and minor units, parsed times. */
export interface ParsedPosition {
  readonly positionId: number;
  readonly productId: string | null;
  readonly productName: string | null;
  readonly unit: 0 | 1;
  readonly amount: Decimal;
  /** Whole pieces (pieces unit only; a fraction of a piece counts in value rules only). */
  readonly pieces: number;
  readonly unitPriceMinor: number;
  /** Unit price times Amount, rounded half away from zero to the minor unit. */
  readonly lineGrossMinor: number;
  readonly hasDiscounts: boolean;
  readonly orderTime: Instant | null;
}

export interface ParsedBasket {
  readonly timestamp: Instant;
  readonly hasDiscounts: boolean;
  readonly currency: string;
  readonly exponent: number;
  readonly contextIdentifiers: readonly string[];
  readonly totalValueMinor: number | null;
  readonly billPdf: Buffer | null;
  readonly positions: readonly ParsedPosition[];
}

const ONE: Decimal = { units: 1n, scale: 0 };

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

function invalid(detail: string): AppError {
  return new AppError('invalidBody', detail);
}

/** A basket that was read but breaks a rule (not a syntax error). */
function refused(detail: string): AppError {
  return new AppError('refused', detail);
}

/**
 * Checks what the schema cannot (times, unique PositionIds, exact amounts) and converts the
 * basket to minor units. Every failure is a 400 / 1000 naming the field.
 */
const PDF_HEADER = Buffer.from('%PDF-');
const PDF_END = Buffer.from('%%EOF');
/** How far from the end a PDF reader looks for the end-of-file marker. */
const PDF_END_WINDOW = 1024;

/**
 * Whether the bytes are a PDF by its header and trailer: `%PDF-` first, `%%EOF` within the last
 * 1024 bytes (trailing whitespace allowed). The receipt serves these bytes as the bill, so
 * anything else (an HTML page, a script) is refused at the upload (docs/decisions.md,
 * "Gift-card privacy and hardened pages").
 */
export function isPdf(bytes: Buffer): boolean {
  if (bytes.length < PDF_HEADER.length + PDF_END.length) return false;
  if (!bytes.subarray(0, PDF_HEADER.length).equals(PDF_HEADER)) return false;
  return bytes.subarray(Math.max(0, bytes.length - PDF_END_WINDOW)).includes(PDF_END);
}

export function parseBasket(body: BasketBody, merchantCurrency: string, timeZone: string): ParsedBasket {
  const timestamp = parseInstant(body.Timestamp, timeZone);
  if (!timestamp) throw invalid('Timestamp must be an ISO 8601 date-time with time zone.');
  const currency = (body.CurrencyISO ?? merchantCurrency).toUpperCase();
  // Campaign amounts, points per amount and balances are the merchant's currency: a bill in
  // another one would mix units, so it is refused rather than priced wrong.
  if (currency !== merchantCurrency) {
    throw refused(`CurrencyISO ${currency} is not the merchant's currency ${merchantCurrency}.`);
  }
  const exponent = currencyExponent(currency);

  let billPdf: Buffer | null = null;
  if (body.BillPdf !== undefined && body.BillPdf !== '') {
    if (!BASE64.test(body.BillPdf)) throw invalid('BillPdf must be base64.');
    billPdf = Buffer.from(body.BillPdf, 'base64');
    if (!isPdf(billPdf)) throw new AppError('billPdfNotPdf');
  }

  let totalValueMinor: number | null = null;
  if (body.TotalValue !== undefined) {
    totalValueMinor = majorToMinor(body.TotalValue, exponent);
    if (totalValueMinor === null) throw refused('TotalValue is out of range.');
  }

  const seen = new Set<number>();
  const orderTimes = new Map<string, Instant | null>();
  const positions: ParsedPosition[] = [];
  for (const [i, p] of (body.Positions ?? []).entries()) {
    const where = () => `Positions[${i}] (PositionId ${p.PositionId})`;
    if (seen.has(p.PositionId)) throw refused(`PositionId ${p.PositionId} occurs more than once.`);
    seen.add(p.PositionId);
    const amount = parseDecimal(p.Amount);
    if (!amount || amount.units <= 0n) throw refused(`${where()}: Amount must be greater than zero.`);
    const priceInput = p.CurrentGrossPrice ?? p.RegularGrossPrice ?? 0;
    const price = parseDecimal(priceInput);
    if (!price || price.units < 0n) throw refused(`${where()}: prices must not be negative.`);
    const unitPriceMinor = productToMinor(price, ONE, exponent);
    // Line gross from the exact product of price and quantity, rounded once.
    const lineGrossMinor = productToMinor(price, amount, exponent);
    if (!Number.isSafeInteger(unitPriceMinor) || !Number.isSafeInteger(lineGrossMinor)) {
      throw refused(`${where()}: price or amount is out of range.`);
    }
    let orderTime: Instant | null = null;
    if (p.OrderTime !== undefined && p.OrderTime !== '') {
      // Tills stamp many positions with the same time: read each distinct text once.
      const known = orderTimes.get(p.OrderTime);
      orderTime = known === undefined ? parseInstant(p.OrderTime, timeZone) : known;
      orderTimes.set(p.OrderTime, orderTime);
      if (!orderTime) throw invalid(`${where()}: OrderTime must be an ISO 8601 date-time with time zone.`);
    }
    const unit = p.Unit === 1 ? 1 : 0;
    let pieces = 0;
    if (unit === 0)
      pieces = Number(amount.scale === 0 ? amount.units : amount.units / powerOfTen(amount.scale));
    positions.push({
      positionId: p.PositionId,
      productId: p.ProductId === undefined || p.ProductId === '' ? null : p.ProductId,
      productName: p.ProductName ?? null,
      unit,
      amount,
      pieces,
      unitPriceMinor,
      lineGrossMinor,
      hasDiscounts: p.HasDiscounts === true,
      orderTime,
    });
  }
  // Position order carries no meaning; a fixed order makes every later step deterministic.
  positions.sort((a, b) => a.positionId - b.positionId);
  return {
    timestamp,
    hasDiscounts: body.HasDiscounts,
    currency,
    exponent,
    contextIdentifiers: (body.ContextIdentifiers ?? []).map((c) => c.trim()).filter((c) => c !== ''),
    totalValueMinor,
    billPdf,
    positions,
  };
}
