import { sql } from 'kysely';
import { type TierBasisRef, tierBases, tierStanding } from '../engine/tiers.js';
import type { LoyaltyScheme, TierBasis } from '../engine/types.js';
import { type Consumer, type Db, owner } from './consumer.js';

/**
 * Reading status tiers (docs/decisions.md, "Status tiers"): a consumer's measure per scheme over
 * its period (`tier_measures`, the one rule for it), and where that puts them for the pages and
 * the operator API.
 */

export type { TierBasisRef } from '../engine/tiers.js';

/** The consumer's measure per scheme of `bases`, before anything booked after `nowMs`. */
export async function tierMeasures(
  db: Db,
  merchantId: number,
  consumer: Consumer,
  bases: readonly TierBasisRef[],
  timeZone: string,
  nowMs: number,
): Promise<Map<number, number>> {
  if (bases.length === 0) return new Map();
  const o = owner(consumer);
  const { rows } = await sql<{ measures: Record<string, number> }>`
    SELECT tier_measures(${merchantId}, ${o.profile_id}::bigint, ${o.card_id}::bigint,
      ${JSON.stringify(bases)}::json, ${timeZone}, ${new Date(nowMs)}) AS measures`.execute(db);
  return new Map(Object.entries(rows[0]?.measures ?? {}).map(([id, n]) => [Number(id), Number(n)]));
}

/**
 * Where a consumer stands in one scheme with tiers, as the operator API and the pages show it:
 * `value`, thresholds and what is missing in points, or in minor units for spend; the multiplier
 * as a decimal (1.5).
 */
export interface TierStatus {
  readonly schemeId: number;
  readonly schemeName: string;
  readonly measure: TierBasis['measure'];
  readonly period: { rollingDays?: number; calendar?: 'month' | 'quarter' | 'year' };
  /** Points earned or minor units spent in the period so far. */
  readonly value: number;
  readonly tier: { readonly name: string; readonly multiplier: number } | null;
  readonly next: { readonly name: string; readonly threshold: number; readonly missing: number } | null;
}

/** The consumer's standing in every live scheme of the merchant that has tiers, by scheme id. */
export async function tierStatuses(
  db: Db,
  merchantId: number,
  consumer: Consumer,
  nowMs: number,
): Promise<TierStatus[]> {
  const rows = await db
    .selectFrom('loyalty_schemes as s')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .select(['s.id', 's.version', 's.engine', 'm.time_zone'])
    .where('s.merchant_id', '=', merchantId)
    .where('s.ended_at', 'is', null)
    .where('s.paused_at', 'is', null)
    .orderBy('s.id')
    .execute();
  const schemes = rows.map((r): LoyaltyScheme => ({
    ...(r.engine as unknown as Omit<LoyaltyScheme, 'id' | 'version'>),
    id: r.id,
    version: r.version,
  }));
  const bases = tierBases(schemes);
  const first = rows[0];
  if (bases.length === 0 || first === undefined) return [];
  const measures = await tierMeasures(db, merchantId, consumer, bases, first.time_zone, nowMs);
  const byId = new Map(schemes.map((s) => [s.id, s]));
  return bases.flatMap((b) => {
    const scheme = byId.get(b.schemeId);
    if (scheme === undefined) return [];
    const value = measures.get(b.schemeId) ?? 0;
    const standing = tierStanding(scheme.tiers ?? [], value);
    return [
      {
        schemeId: b.schemeId,
        schemeName: scheme.name,
        measure: b.measure,
        period: b.rollingDays !== null ? { rollingDays: b.rollingDays } : { calendar: b.calendar ?? 'month' },
        value,
        tier: standing.tier && {
          name: standing.tier.name,
          multiplier: standing.tier.multiplierPermille / 1000,
        },
        next: standing.next && {
          name: standing.next.name,
          threshold: standing.next.threshold,
          missing: standing.missing ?? 0,
        },
      },
    ];
  });
}
