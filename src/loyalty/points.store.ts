import { type Transaction, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { type BasketRef, type Consumer, type Db, owner } from './consumer.js';
import type { TierBasisRef } from '../engine/tiers.js';
import { moveCardUsagesToProfile } from './usage.store.js';

// The one entry point of the basket use cases into loyalty.
export type { BasketRef, Consumer } from './consumer.js';
export { releaseUsage } from './usage.store.js';

/** What a consumer holds: unexpired points per scheme, campaign usages per campaign. */
export interface ConsumerHoldings {
  readonly points: Map<number, number>;
  readonly usages: Map<number, number>;
  /** The status-tier measure per scheme with tiers (only when tiers were asked for). */
  readonly tierMeasures?: Map<number, number>;
}

/** The schemes with status tiers whose measures to read too, and the merchant's time zone. */
export interface TierQuery {
  readonly bases: readonly TierBasisRef[];
  readonly timeZone: string;
}

/**
 * What the consumer holds now, for the schemes and campaigns asked for: the one reading of it the
 * upload, the grant (`grant_basket`) and the return share (`consumer_state`, docs/architecture.md
 * "Where each rule lives").
 */
export async function consumerHoldings(
  db: Db,
  merchantId: number,
  consumer: Consumer,
  schemeIds: readonly number[],
  campaignIds: readonly number[],
  nowMs: number,
  tiers: TierQuery | null = null,
): Promise<ConsumerHoldings> {
  const withTiers = tiers !== null && tiers.bases.length > 0;
  if (schemeIds.length === 0 && campaignIds.length === 0 && !withTiers)
    return { points: new Map(), usages: new Map() };
  const o = owner(consumer);
  // The tier measures in the same statement: no second round trip (docs/decisions.md, "Status tiers").
  const { rows } = await sql<{
    state: { points: Record<string, number>; usages: Record<string, number> };
    tiers: Record<string, number> | null;
  }>`
    SELECT consumer_state(${merchantId}, ${o.profile_id}::bigint, ${o.card_id}::bigint,
      ${[...schemeIds]}::bigint[], ${[...campaignIds]}::bigint[], ${new Date(nowMs)}) AS state,
      ${
        withTiers
          ? sql`tier_measures(${merchantId}, ${o.profile_id}::bigint, ${o.card_id}::bigint,
              ${JSON.stringify(tiers.bases)}::json, ${tiers.timeZone}, ${new Date(nowMs)})`
          : sql`NULL::json`
      } AS tiers`.execute(db);
  const state = rows[0]?.state ?? { points: {}, usages: {} };
  const byId = (o: Record<string, number>) =>
    new Map(Object.entries(o).map(([id, n]) => [Number(id), Number(n)]));
  const measures = rows[0]?.tiers;
  return {
    points: byId(state.points),
    usages: byId(state.usages),
    ...(withTiers ? { tierMeasures: byId(measures ?? {}) } : {}),
  };
}

/** Points the consumer holds per scheme: the unexpired rest of every lot. */
export async function committedPoints(
  db: Db,
  merchantId: number,
  consumer: Consumer,
  schemeIds: readonly number[],
  nowMs: number,
): Promise<Map<number, number>> {
  return (await consumerHoldings(db, merchantId, consumer, schemeIds, [], nowMs)).points;
}

/**
 * The consumer who holds the points now, locked for the booking (`points_holder`): a card linked
 * to a profile since the upload (or the grant) brought its points to that profile, so bookings go
 * there; two bookings of one consumer run one after the other, so points are never spent twice.
 */
export async function lockPointsHolder(trx: Transaction<DB>, consumer: Consumer): Promise<Consumer> {
  const o = owner(consumer);
  const { rows } = await sql<{ profile_id: number | null; card_id: number | null }>`
    SELECT holder_profile_id AS profile_id, holder_card_id AS card_id
      FROM points_holder(${o.profile_id}::bigint, ${o.card_id}::bigint)`.execute(trx);
  const row = rows[0];
  if (row?.profile_id != null) return { profileId: Number(row.profile_id) };
  return row?.card_id != null ? { cardId: Number(row.card_id) } : consumer;
}

/**
 * Takes points from the consumer's unexpired lots, oldest expiry first (lots that never expire
 * last), and returns how many it took: the one rule for it, `take_points`, which the grant uses
 * too. A return takes back the points of its own basket first (`ownBasketFirst`). The caller
 * holds the consumer lock.
 */
export async function takePoints(
  trx: Transaction<DB>,
  ref: BasketRef,
  consumer: Consumer,
  schemeId: number,
  points: number,
  nowMs: number,
  kind: 'spend' | 'return_earned',
  returnId: string | null,
  ownBasketFirst = false,
): Promise<number> {
  if (points <= 0) return 0;
  const o = owner(consumer);
  const { rows } = await sql<{ taken: number }>`
    SELECT take_points(${ref.merchantId}, ${schemeId}, ${o.profile_id}::bigint, ${o.card_id}::bigint,
      ${points}, ${new Date(nowMs)}, ${kind}, ${ref.trackingUnitId}, ${ref.basketId}, ${returnId},
      ${ownBasketFirst}) AS taken`.execute(trx);
  return Number(rows[0]?.taken ?? 0);
}

/**
 * A return gives spent points back as a new lot that does not expire before the original would
 * (`add_points_lot`, through which the grant's earned points come in too).
 */
export async function givePointsBack(
  trx: Transaction<DB>,
  ref: BasketRef,
  consumer: Consumer,
  schemeId: number,
  points: number,
  nowMs: number,
  expiresAtMs: number | null,
  returnId: string,
): Promise<void> {
  if (points <= 0) return;
  const o = owner(consumer);
  await sql`
    SELECT add_points_lot(${ref.merchantId}, ${schemeId}, ${o.profile_id}::bigint, ${o.card_id}::bigint,
      ${points}, ${new Date(nowMs)}, ${expiresAtMs === null ? null : new Date(expiresAtMs)}::timestamptz,
      'return_spent', ${ref.trackingUnitId}, ${ref.basketId}, ${returnId})`.execute(trx);
}

/**
 * Spent points come back expiring no earlier than the latest lot the grant spent them from
 * (`fallbackMs` when the grant's spending is not on record).
 */
export async function spentPointsExpiry(
  trx: Transaction<DB>,
  ref: BasketRef,
  schemeId: number,
  fallbackMs: number | null,
): Promise<number | null> {
  const rows = await trx
    .selectFrom('points_movements as m')
    .innerJoin('points_lots as l', 'l.id', 'm.lot_id')
    .select(['l.expires_at'])
    .where('m.tracking_unit_id', '=', ref.trackingUnitId)
    .where('m.basket_id', '=', ref.basketId)
    .where('m.scheme_id', '=', schemeId)
    .where('m.kind', '=', 'spend')
    .execute();
  if (rows.length === 0) return fallbackMs;
  let latest = 0;
  for (const r of rows) {
    if (r.expires_at === null) return null;
    latest = Math.max(latest, new Date(r.expires_at).getTime());
  }
  return latest;
}

/**
 * A card linked to a profile brings its points and usages along: every lot and usage of the card
 * moves to the profile, recorded as a `move_out` from the card and a `move_in` to the profile.
 */
export async function moveCardLoyaltyToProfile(
  trx: Transaction<DB>,
  merchantId: number,
  cardId: number,
  profileId: number,
  nowMs: number,
): Promise<void> {
  const lots = await trx
    .updateTable('points_lots')
    .set({ card_id: null, profile_id: profileId })
    .where('merchant_id', '=', merchantId)
    .where('card_id', '=', cardId)
    .returning(['id', 'scheme_id', 'remaining'])
    .execute();
  if (lots.length > 0) {
    lots.sort((a, b) => a.id - b.id);
    // One statement: each lot's move_out is numbered before its move_in, so the lot's last
    // movement names its new holder.
    await trx
      .insertInto('points_movements')
      .values(
        lots.flatMap((lot) => {
          const row = {
            merchant_id: merchantId,
            scheme_id: lot.scheme_id,
            lot_id: lot.id,
            tracking_unit_id: null,
            basket_id: null,
            return_id: null,
            created_at: new Date(nowMs),
            expires_at: null,
            link_card_id: cardId,
          };
          return [
            { ...row, ...owner({ cardId }), kind: 'move_out' as const, points: -lot.remaining },
            { ...row, ...owner({ profileId }), kind: 'move_in' as const, points: lot.remaining },
          ];
        }),
      )
      .execute();
  }
  await moveCardUsagesToProfile(trx, merchantId, cardId, profileId, nowMs);
}
