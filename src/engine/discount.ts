import { mulDivRoundFast, percentOf } from './minor-math.js';
import type { Discount } from './types.js';

/**
 * A discount's kind as a number, for the index's packed rows (campaign-index.ts): the functions
 * below take the kind and its figure (basis points or minor units) so that a campaign's discount
 * can be read from the packed numbers by rank instead of from its object.
 */
export const DISCOUNT_PERCENT = 0;
export const DISCOUNT_AMOUNT = 1;
export const DISCOUNT_PRICE = 2;

/** The kind's number and the figure of a discount; kind -1 for a kind the engine does not know. */
export function discountCode(discount: Discount): { kind: number; figure: number } {
  switch (discount.kind) {
    case 'percent':
      return { kind: DISCOUNT_PERCENT, figure: discount.bp };
    case 'amount':
      return { kind: DISCOUNT_AMOUNT, figure: discount.minor };
    case 'price':
      return { kind: DISCOUNT_PRICE, figure: discount.minor };
    default:
      return { kind: -1, figure: Number.NaN };
  }
}

/**
 * Reward on a value (one unit, a set of units, a bill): `percent` of it, `amount` off it (capped at
 * the value) or `price` as its new price (value - price, 0 when the price is not lower).
 */
export function discountOnValue(discount: Discount, valueMinor: number): number {
  if (valueMinor <= 0) return 0;
  switch (discount.kind) {
    case 'percent':
      return discountOnValueOf(DISCOUNT_PERCENT, discount.bp, valueMinor);
    case 'amount':
      return discountOnValueOf(DISCOUNT_AMOUNT, discount.minor, valueMinor);
    case 'price':
      return discountOnValueOf(DISCOUNT_PRICE, discount.minor, valueMinor);
  }
}

/** discountOnValue of the discount of kind `kind` (DISCOUNT_*) and figure `figure`. */
export function discountOnValueOf(kind: number, figure: number, valueMinor: number): number {
  if (valueMinor <= 0) return 0;
  if (kind === DISCOUNT_PERCENT) return Math.min(valueMinor, percentOf(valueMinor, Math.max(0, figure)));
  if (kind === DISCOUNT_AMOUNT) return Math.min(valueMinor, Math.max(0, figure));
  return Math.max(0, valueMinor - Math.max(0, figure));
}

/**
 * Reward on `count` equal piece units of `unitPriceMinor` each. `percent` is taken of their
 * combined value (so 20 % of 3 x 2.45 is 1.47, not 3 x 0.49); `amount` and `price` per unit.
 */
export function discountOnUnits(discount: Discount, unitPriceMinor: number, count: number): number {
  if (count <= 0 || unitPriceMinor <= 0) return 0;
  if (discount.kind === 'percent') return discountOnValue(discount, unitPriceMinor * count);
  return discountOnValue(discount, unitPriceMinor) * count;
}

/** discountOnUnits by kind and figure (see discountOnValueOf). */
export function discountOnUnitsOf(
  kind: number,
  figure: number,
  unitPriceMinor: number,
  count: number,
): number {
  if (count <= 0 || unitPriceMinor <= 0) return 0;
  if (kind === DISCOUNT_PERCENT) return discountOnValueOf(kind, figure, unitPriceMinor * count);
  return discountOnValueOf(kind, figure, unitPriceMinor) * count;
}

/**
 * Reward on a kg line (value rules only): `percent` of the line, `amount` off once per line,
 * `price` as the new price per kg, i.e. the line is repriced at price / unitPrice of its value.
 */
export function discountOnWeighedLine(discount: Discount, unitPriceMinor: number, lineMinor: number): number {
  if (discount.kind === 'price')
    return discountOnWeighedLineOf(DISCOUNT_PRICE, discount.minor, unitPriceMinor, lineMinor);
  if (lineMinor <= 0 || unitPriceMinor <= 0) return 0;
  return discountOnValue(discount, lineMinor);
}

/** discountOnWeighedLine by kind and figure (see discountOnValueOf). */
export function discountOnWeighedLineOf(
  kind: number,
  figure: number,
  unitPriceMinor: number,
  lineMinor: number,
): number {
  if (lineMinor <= 0 || unitPriceMinor <= 0) return 0;
  if (kind !== DISCOUNT_PRICE) return discountOnValueOf(kind, figure, lineMinor);
  const newPrice = Math.max(0, figure);
  if (newPrice >= unitPriceMinor) return 0;
  return lineMinor - mulDivRoundFast(lineMinor, newPrice, unitPriceMinor);
}
