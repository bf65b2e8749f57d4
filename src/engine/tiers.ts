import type { LoyaltyScheme, Tier, TierBasis } from './types.js';

/**
 * Status tiers of a loyalty scheme (docs/decisions.md, "Status tiers"). A consumer's tier is the
 * highest tier whose threshold their measure over the period reaches; below the first threshold
 * they have none and earn as without tiers. The measure is read before the basket at hand: its own
 * points or spend count from the next basket on.
 */

export interface TierStanding {
  /** The tier reached, null below the first threshold. */
  readonly tier: Tier | null;
  /** The tier above, null at the top. */
  readonly next: Tier | null;
  /** What is missing to the next tier (points or minor units), null at the top. */
  readonly missing: number | null;
}

/** Multiplier of a consumer without a tier, and of every consumer of a scheme without tiers. */
export const BASE_MULTIPLIER_PERMILLE = 1000;

/** Where a measure stands among tiers sorted by ascending threshold. */
export function tierStanding(tiers: readonly Tier[], measure: number): TierStanding {
  let tier: Tier | null = null;
  let next: Tier | null = null;
  for (const t of tiers) {
    if (measure >= t.threshold) tier = t;
    else {
      next = t;
      break;
    }
  }
  return { tier, next, missing: next === null ? null : next.threshold - measure };
}

/** The tier of a consumer in a scheme, null when the scheme has no tiers or the measure is unknown. */
export function consumerTier(scheme: LoyaltyScheme, measure: number | undefined): Tier | null {
  if (scheme.tiers === undefined || scheme.tiers.length === 0 || measure === undefined) return null;
  return tierStanding(scheme.tiers, measure).tier;
}

/** Points earned times the tier's multiplier, rounded down; a scheme without tiers gives them as they are. */
export function multiplyPoints(points: number, tier: Tier | null): number {
  if (tier === null || tier.multiplierPermille === BASE_MULTIPLIER_PERMILLE) return points;
  return Math.floor((points * tier.multiplierPermille) / 1000);
}

/** A scheme's tier basis as the database's `tier_measures` takes it (and a stored upload keeps it). */
export interface TierBasisRef {
  readonly schemeId: number;
  readonly measure: TierBasis['measure'];
  readonly rollingDays: number | null;
  readonly calendar: 'month' | 'quarter' | 'year' | null;
  /**
   * Spend only: the outlets the scheme is limited to, where its baskets and their returns count
   * (points count where the scheme earns anyway). Null, or absent in a basket stored before it was
   * kept: every outlet.
   */
  readonly outletIds?: readonly number[] | null;
  /**
   * Spend only: the scheme's validity (from inclusive, to exclusive, as it earns), which bounds the
   * baskets that count by their Timestamp and the returns of those. Null, or absent in a basket
   * stored before it was kept: no bound.
   */
  readonly validFromMs?: number | null;
  readonly validToMs?: number | null;
}

/** The bases of the schemes that have tiers; [] when none has (then nothing is read). */
export function tierBases(schemes: readonly LoyaltyScheme[]): TierBasisRef[] {
  const bases: TierBasisRef[] = [];
  for (const s of schemes) {
    if (s.tiers === undefined || s.tiers.length === 0 || !s.tierBasis) continue;
    const { measure, period } = s.tierBasis;
    bases.push({
      schemeId: s.id,
      measure,
      rollingDays: period.kind === 'rolling' ? period.days : null,
      calendar: period.kind === 'calendar' ? period.unit : null,
      outletIds: measure === 'spend' ? s.outletIds : null,
      validFromMs: measure === 'spend' ? s.validFromMs : null,
      validToMs: measure === 'spend' ? s.validToMs : null,
    });
  }
  return bases;
}
