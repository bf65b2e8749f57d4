import { tierStanding } from '../engine/tiers.js';
import type { LoyaltyScheme, Tier, TierBasis } from '../engine/types.js';

/**
 * Tier-change events (docs/decisions.md, "Status tiers", "Tier-change events"): a booking that moves
 * a consumer's measure across a threshold of a scheme's tiers writes one event per scheme in the
 * outbox, in the booking's transaction. Time passing is no booking and writes none: the tier is
 * computed whenever it is read.
 */

/** The outbox topic of tier changes; its handler sends the mail of an upgrade. */
export const TIER_CHANGED = 'loyalty.tier_changed';

/** A tier as the event names it: its name and multiplier in permille (1.5 = 1500). */
export interface TierRef {
  readonly name: string;
  readonly multiplierPermille: number;
}

/** The outbox payload of a tier change. */
export interface TierChangedEvent {
  /** The consumer: the profile, or a card of its own (then profileId is null). */
  readonly profileId: number | null;
  readonly cardId: number | null;
  readonly schemeId: number;
  readonly schemeName: string;
  readonly measure: TierBasis['measure'];
  /** The measure before and after the booking (points, or minor units for spend). */
  readonly valueBefore: number;
  readonly valueAfter: number;
  readonly before: TierRef | null;
  readonly after: TierRef | null;
  /** The tier above the new one and what is missing to it; null at the top. */
  readonly next: { readonly name: string; readonly threshold: number; readonly missing: number } | null;
  /** Whether the new tier is above the old one. */
  readonly upgrade: boolean;
  /** The booking that moved the measure. */
  readonly cause: 'grant' | 'return';
  readonly occurredAt: string;
}

const ref = (tier: Tier | null): TierRef | null =>
  tier && { name: tier.name, multiplierPermille: tier.multiplierPermille };

/**
 * The tier changes a booking makes: for each scheme with tiers whose measure before the booking is
 * known, the tier at the measure before and at the measure plus the booking's contribution (points
 * it earned, negative for what a return took back; the basket's gross for spend). Only schemes
 * whose tier differs give an event.
 */
export function tierChanges(
  schemes: readonly LoyaltyScheme[],
  before: ReadonlyMap<number, number>,
  contribution: (scheme: LoyaltyScheme, measure: TierBasis['measure']) => number,
  consumer: { readonly profileId: number | null; readonly cardId: number | null },
  cause: TierChangedEvent['cause'],
  nowMs: number,
): TierChangedEvent[] {
  const events: TierChangedEvent[] = [];
  for (const scheme of schemes) {
    const tiers = scheme.tiers ?? [];
    const valueBefore = before.get(scheme.id);
    if (tiers.length === 0 || !scheme.tierBasis || valueBefore === undefined) continue;
    const { measure } = scheme.tierBasis;
    const valueAfter = Math.max(0, valueBefore + contribution(scheme, measure));
    const was = tierStanding(tiers, valueBefore);
    const now = tierStanding(tiers, valueAfter);
    if (was.tier?.name === now.tier?.name) continue;
    events.push({
      profileId: consumer.profileId,
      cardId: consumer.cardId,
      schemeId: scheme.id,
      schemeName: scheme.name,
      measure,
      valueBefore,
      valueAfter,
      before: ref(was.tier),
      after: ref(now.tier),
      next: now.next && { name: now.next.name, threshold: now.next.threshold, missing: now.missing ?? 0 },
      upgrade: (now.tier?.threshold ?? 0) > (was.tier?.threshold ?? 0),
      cause,
      occurredAt: new Date(nowMs).toISOString(),
    });
  }
  return events;
}
