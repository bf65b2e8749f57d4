import { type Decimal, parseDecimal } from '../shared/money.js';
import type { Instant } from '../shared/time.js';
import type { ParsedBasket, ParsedPosition } from './basket.parse.js';

/**
 * The parsed basket as an upload stores it (in the `result` column, beside the engine snapshot),
 * so that grant and return read the very basket the upload priced without parsing or validating
 * the body again (docs/decisions.md, "The parsed basket is stored versioned").
 *
 * Version 1 keeps what the engine and a return read, positions as arrays to keep the hot path's
 * row small: [PositionId, PLU or null, unit, Amount as exact decimal text, whole pieces, unit
 * price minor, line gross minor, HasDiscounts 0/1, OrderTime UTC ms or null, its offset or null].
 */
export type StoredPositionV1 = [
  positionId: number,
  productId: string | null,
  unit: 0 | 1,
  amount: string,
  pieces: number,
  unitPriceMinor: number,
  lineGrossMinor: number,
  hasDiscounts: 0 | 1,
  orderTimeUtcMs: number | null,
  orderTimeOffsetMinutes: number | null,
];

export interface StoredBasketV1 {
  readonly v: 1;
  /** Timestamp: [UTC ms, offset minutes]. */
  readonly t: [number, number];
  readonly hasDiscounts: boolean;
  readonly positions: StoredPositionV1[];
}

/** The basket as the engine and a return need it, decoded from its stored form. */
export interface StoredBasket {
  readonly timestamp: Instant;
  readonly hasDiscounts: boolean;
  readonly positions: readonly Omit<ParsedPosition, 'productName'>[];
}

export function decimalText(d: Decimal): string {
  const negative = d.units < 0n;
  const digits = (negative ? -d.units : d.units).toString().padStart(d.scale + 1, '0');
  const text = d.scale === 0 ? digits : `${digits.slice(0, -d.scale)}.${digits.slice(-d.scale)}`;
  return negative ? `-${text}` : text;
}

export function encodeStoredBasket(basket: ParsedBasket): StoredBasketV1 {
  return {
    v: 1,
    t: [basket.timestamp.utcMs, basket.timestamp.offsetMinutes],
    hasDiscounts: basket.hasDiscounts,
    positions: basket.positions.map((p) => [
      p.positionId,
      p.productId,
      p.unit,
      decimalText(p.amount),
      p.pieces,
      p.unitPriceMinor,
      p.lineGrossMinor,
      p.hasDiscounts ? 1 : 0,
      p.orderTime === null ? null : p.orderTime.utcMs,
      p.orderTime === null ? null : p.orderTime.offsetMinutes,
    ]),
  };
}

/** Thrown when a stored basket does not have the shape of a known version: a bug, never input. */
export class StoredBasketError extends Error {}

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x);

function position(raw: unknown, i: number): StoredBasket['positions'][number] {
  const bad = (what: string) => new StoredBasketError(`stored basket position ${i}: ${what}`);
  if (!Array.isArray(raw) || raw.length !== 10) throw bad('not a version 1 position');
  const [positionId, productId, unit, amountText, pieces, unitPriceMinor, lineGrossMinor, hasDiscounts] = raw;
  const [, , , , , , , , orderUtcMs, orderOffset] = raw;
  if (!isInt(positionId) || !isInt(pieces) || !isInt(unitPriceMinor) || !isInt(lineGrossMinor)) {
    throw bad('ids and amounts must be integers');
  }
  if (productId !== null && typeof productId !== 'string') throw bad('PLU must be text or null');
  if (unit !== 0 && unit !== 1) throw bad('unit must be 0 or 1');
  if (hasDiscounts !== 0 && hasDiscounts !== 1) throw bad('HasDiscounts must be 0 or 1');
  const amount = typeof amountText === 'string' ? parseDecimal(amountText) : null;
  if (amount === null) throw bad('Amount must be decimal text');
  let orderTime: Instant | null = null;
  if (orderUtcMs !== null || orderOffset !== null) {
    if (!isInt(orderUtcMs) || !isInt(orderOffset)) throw bad('OrderTime must be two integers or null');
    orderTime = { utcMs: orderUtcMs, offsetMinutes: orderOffset };
  }
  return {
    positionId,
    productId,
    unit,
    amount,
    pieces,
    unitPriceMinor,
    lineGrossMinor,
    hasDiscounts: hasDiscounts === 1,
    orderTime,
  };
}

/** Reads a stored basket of any known version; null when the row has none (uploaded before). */
export function decodeStoredBasket(raw: unknown): StoredBasket | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || (raw as { v?: unknown }).v !== 1) {
    throw new StoredBasketError('stored basket of an unknown version');
  }
  const { t, hasDiscounts, positions } = raw as Partial<Record<keyof StoredBasketV1, unknown>>;
  if (!Array.isArray(t) || t.length !== 2 || !isInt(t[0]) || !isInt(t[1])) {
    throw new StoredBasketError('stored basket timestamp must be two integers');
  }
  if (typeof hasDiscounts !== 'boolean') throw new StoredBasketError('stored basket HasDiscounts');
  if (!Array.isArray(positions)) throw new StoredBasketError('stored basket positions must be a list');
  return {
    timestamp: { utcMs: t[0], offsetMinutes: t[1] },
    hasDiscounts,
    positions: positions.map(position),
  };
}
