import { type Kysely, sql } from 'kysely';
import type { TierBasisRef } from '../engine/tiers.js';
import type { DB } from '../store/schema.js';

/**
 * The customer an order's profileReference names, their uses of the campaigns given and their
 * measures in the tier schemes given, in one statement (`customer_uses_by_reference`,
 * sql/customer_uses_by_reference.sql, planned once per connection): what the batched writer's order
 * is priced on before `book_orders` checks the uses again under the customer's lock
 * (docs/decisions.md, "Usage limits and status tiers on online orders"). Null: the reference names
 * no usable profile.
 */
export async function customerUsesByReference(
  db: Kysely<DB>,
  merchantId: number,
  reference: { readonly text: string; readonly otpSha256: string },
  campaignIds: readonly number[],
  nowMs: number,
  /** The schemes whose tiers a campaign is limited to, and the shop's time zone: their measures too. */
  tiers: { readonly bases: readonly TierBasisRef[]; readonly timeZone: string } | null = null,
): Promise<{
  readonly profileId: number;
  readonly usages: Map<number, number>;
  readonly tierMeasures: Map<number, number> | null;
} | null> {
  const now = new Date(nowMs);
  const withTiers = tiers !== null && tiers.bases.length > 0;
  const bases = withTiers ? JSON.stringify(tiers.bases) : null;
  const zone = withTiers ? tiers.timeZone : null;
  const { rows } = await sql<{
    profile_id: string | number;
    usages: Record<string, number> | null;
    tiers: Record<string, number> | null;
  }>`
    SELECT profile_id, usages, tiers
      FROM customer_uses_by_reference(${merchantId}::bigint, ${reference.text}::text,
             ${reference.otpSha256}::text, ${[...campaignIds]}::bigint[], ${now}::timestamptz,
             ${bases}::json, ${zone}::text)`.execute(db);
  const row = rows[0];
  if (row === undefined) return null;
  const byId = (o: Record<string, number>) =>
    new Map(Object.entries(o).map(([id, n]) => [Number(id), Number(n)]));
  return {
    profileId: Number(row.profile_id),
    usages: byId(row.usages ?? {}),
    tierMeasures: withTiers ? byId(row.tiers ?? {}) : null,
  };
}
