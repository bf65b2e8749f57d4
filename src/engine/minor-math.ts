import { mulDivRound } from '../shared/money.js';

/**
 * value * numerator / denominator rounded half away from zero, for non-negative integers.
 * Stays in plain number arithmetic while the product is exact (the hot path of every percent
 * reward) and falls back to the BigInt helper of shared/money.ts beyond that.
 */
export function mulDivRoundFast(value: number, numerator: number, denominator: number): number {
  const product = value * numerator;
  if (value < 0 || numerator < 0 || denominator <= 0 || !Number.isSafeInteger(product)) {
    return mulDivRound(value, numerator, denominator);
  }
  const q = Math.floor(product / denominator);
  const r = product - q * denominator;
  return r * 2 >= denominator ? q + 1 : q;
}

/** Percent (basis points) of a value, rounded half away from zero. */
export function percentOf(valueMinor: number, bp: number): number {
  return mulDivRoundFast(valueMinor, bp, 10_000);
}
