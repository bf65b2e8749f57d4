import type { Tier, TierBasis } from '../engine/types.js';
import { decimalPlaces, decimalToMinor, parseDecimal } from '../shared/money.js';
import { fail } from './rule-definition-error.js';
import type { SchemeBody } from './rule.schemas.js';

/**
 * A scheme's status tiers from the operator's body to the engine's (docs/decisions.md, "Status
 * tiers"): thresholds in points or, for spend, major units to minor units exactly; multipliers to
 * permille exactly (1.5 -> 1500). Names unique (ignoring case), thresholds strictly ascending.
 */

const MAX_POINTS_THRESHOLD = 1_000_000_000;
const MAX_SPEND_THRESHOLD_MINOR = 1_000_000_000_000;
const MAX_ROLLING_DAYS = 3660;

function exactly(value: number, field: string, places: number, scale: number): number {
  const d = parseDecimal(value);
  if (d === null) fail(field, 'must be a finite decimal number.');
  if (decimalPlaces(d) > places)
    fail(field, places === 0 ? 'must be a whole number.' : `must have at most ${places} decimals.`);
  return Number(decimalToMinor(d, scale));
}

function basisOf(body: SchemeBody): TierBasis {
  const b = body.tierBasis;
  if (b === undefined || b === null) return fail('tierBasis', 'is required with tiers (measure and period).');
  const { rollingDays, calendar } = b.period;
  if ((rollingDays === undefined) === (calendar === undefined)) {
    fail('tierBasis.period', 'must give exactly one of rollingDays or calendar.');
  }
  if (rollingDays !== undefined) {
    if (!Number.isSafeInteger(rollingDays) || rollingDays < 1 || rollingDays > MAX_ROLLING_DAYS) {
      fail('tierBasis.period.rollingDays', `must be a whole number of days from 1 to ${MAX_ROLLING_DAYS}.`);
    }
    return { measure: b.measure, period: { kind: 'rolling', days: rollingDays } };
  }
  return { measure: b.measure, period: { kind: 'calendar', unit: calendar ?? 'month' } };
}

/** The engine's tiers and basis; none when the body has no tiers (a basis alone is refused). */
export function tiersToEngine(body: SchemeBody, exponent: number): { tiers?: Tier[]; tierBasis?: TierBasis } {
  if (body.tiers === undefined || body.tiers.length === 0) {
    if (body.tierBasis !== undefined && body.tierBasis !== null) {
      fail('tierBasis', 'applies to a scheme with tiers only; omit it (or null) without tiers.');
    }
    return {};
  }
  const tierBasis = basisOf(body);
  const spend = tierBasis.measure === 'spend';
  const names = new Set<string>();
  let previous = 0;
  const tiers = body.tiers.map((t, i): Tier => {
    const at = `tiers[${i}]`;
    const name = t.name.trim();
    if (name === '') fail(`${at}.name`, 'must not be empty.');
    if (names.has(name.toLowerCase())) fail(`${at}.name`, `"${name}" is the name of an earlier tier.`);
    names.add(name.toLowerCase());
    const threshold = spend
      ? exactly(t.threshold, `${at}.threshold`, exponent, exponent)
      : exactly(t.threshold, `${at}.threshold`, 0, 0);
    const max = spend ? MAX_SPEND_THRESHOLD_MINOR : MAX_POINTS_THRESHOLD;
    if (threshold <= 0) fail(`${at}.threshold`, 'must be greater than 0.');
    if (threshold > max) fail(`${at}.threshold`, 'is too large.');
    if (threshold <= previous) fail(`${at}.threshold`, 'must be above the threshold of the tier before.');
    previous = threshold;
    const multiplierPermille = exactly(t.multiplier, `${at}.multiplier`, 3, 3);
    if (multiplierPermille < 1000 || multiplierPermille > 10_000) {
      fail(`${at}.multiplier`, 'must be from 1 to 10.');
    }
    return { name, threshold, multiplierPermille };
  });
  return { tiers, tierBasis };
}
