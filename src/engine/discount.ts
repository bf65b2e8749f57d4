import { mulDivRoundFast, percentOf } from './minor-math.js';
import type { Discount } from './types.js';

/**
 * Reward on a value (one unit, a set of units, a bill): `percent` of it, `amount` off it (capped at
 * the value) or `price` as its new price (value - price, 0 when the price is not lower).
 */
export function discountOnValue(discount: Discount, valueMinor: number): number {
  if (valueMinor <= 0) return 0;
  switch (discount.kind) {
    case 'percent':
      return Math.min(valueMinor, percentOf(valueMinor, Math.max(0, discount.bp)));
    case 'amount':
      return Math.min(valueMinor, Math.max(0, discount.minor));
    case 'price':
      return Math.max(0, valueMinor - Math.max(0, discount.minor));
  }
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

/**
 * Reward on a kg line (value rules only): `percent` of the line, `amount` off once per line,
 * `price` as the new price per kg, i.e. the line is repriced at price / unitPrice of its value.
 */
export function discountOnWeighedLine(discount: Discount, unitPriceMinor: number, lineMinor: number): number {
  if (lineMinor <= 0 || unitPriceMinor <= 0) return 0;
  if (discount.kind !== 'price') return discountOnValue(discount, lineMinor);
  const newPrice = Math.max(0, discount.minor);
  if (newPrice >= unitPriceMinor) return 0;
  return lineMinor - mulDivRoundFast(lineMinor, newPrice, unitPriceMinor);
}
