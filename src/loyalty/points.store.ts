import { type Transaction, sql } from 'kysely';
import type { DB, PointsMovementKind } from '../store/schema.js';
import { type BasketRef, type Consumer, type Db, owner } from './consumer.js';
import { moveCardUsagesToProfile } from './usage.store.js';

// The one entry point of the basket use cases into loyalty.
export type { BasketRef, Consumer } from './consumer.js';
export { campaignUsages, releaseUsage } from './usage.store.js';

/** The consumer's lots that still hold unexpired points. */
function liveLots(db: Db, merchantId: number, consumer: Consumer, nowMs: number) {
  const q = db
    .selectFrom('points_lots')
    .where('merchant_id', '=', merchantId)
    .where('remaining', '>', 0)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', new Date(nowMs))]));
  return consumer.profileId !== undefined
    ? q.where('profile_id', '=', consumer.profileId)
    : q.where('card_id', '=', consumer.cardId);
}

/** Points the consumer holds per scheme: the unexpired rest of every lot. */
export async function committedPoints(
  db: Db,
  merchantId: number,
  consumer: Consumer,
  schemeIds: readonly number[],
  nowMs: number,
): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (schemeIds.length === 0) return out;
  const q = liveLots(db, merchantId, consumer, nowMs)
    .select(['scheme_id', sql<number>`sum(remaining)::integer`.as('points')])
    .where('scheme_id', 'in', [...schemeIds]);
  for (const row of await q.groupBy('scheme_id').execute()) out.set(row.scheme_id, row.points);
  return out;
}

/**
 * The consumer who holds the points now: a card linked to a profile since the upload (or the
 * grant) brought its points to that profile, so bookings go there.
 */
export async function currentConsumer(trx: Transaction<DB>, consumer: Consumer): Promise<Consumer> {
  if (consumer.cardId === undefined) return consumer;
  const card = await trx
    .selectFrom('cards')
    .select('profile_id')
    .where('id', '=', consumer.cardId)
    .executeTakeFirst();
  return card?.profile_id != null ? { profileId: card.profile_id } : consumer;
}

/**
 * Serialises the bookings of one consumer: two grants of the same consumer run one after the
 * other, so points are never spent twice.
 */
export async function lockConsumer(trx: Transaction<DB>, consumer: Consumer): Promise<void> {
  if (consumer.profileId !== undefined) {
    await trx.selectFrom('profiles').select('id').where('id', '=', consumer.profileId).forUpdate().execute();
  } else {
    await trx.selectFrom('cards').select('id').where('id', '=', consumer.cardId).forUpdate().execute();
  }
}

type MovementKind = Exclude<PointsMovementKind, 'opening' | 'move_out' | 'move_in'>;

/**
 * The immutable record of one change of a lot, written in the same transaction as the change of
 * the lot (the projection): `npm run ledger:verify` checks that each lot holds the sum of its
 * movements (docs/decisions.md "Points history").
 */
async function writeMovement(
  trx: Transaction<DB>,
  ref: BasketRef,
  consumer: Consumer,
  change: {
    schemeId: number;
    kind: MovementKind;
    points: number;
    lotId: number;
    expiresAtMs?: number | null;
  },
  returnId: string | null,
  nowMs: number,
): Promise<void> {
  await trx
    .insertInto('points_movements')
    .values({
      merchant_id: ref.merchantId,
      scheme_id: change.schemeId,
      ...owner(consumer),
      kind: change.kind,
      points: change.points,
      lot_id: change.lotId,
      tracking_unit_id: ref.trackingUnitId,
      basket_id: ref.basketId,
      return_id: returnId,
      created_at: new Date(nowMs),
      expires_at: change.expiresAtMs == null ? null : new Date(change.expiresAtMs),
      link_card_id: null,
    })
    .execute();
}

/** A new lot of points, with its movement. */
async function addLot(
  trx: Transaction<DB>,
  ref: BasketRef,
  consumer: Consumer,
  schemeId: number,
  points: number,
  nowMs: number,
  expiresAtMs: number | null,
  kind: 'earn' | 'return_spent',
  returnId: string | null,
): Promise<void> {
  if (points <= 0) return;
  const o = owner(consumer);
  const lot = await trx
    .insertInto('points_lots')
    .values({
      merchant_id: ref.merchantId,
      scheme_id: schemeId,
      ...o,
      points,
      remaining: points,
      earned_at: new Date(nowMs),
      expires_at: expiresAtMs === null ? null : new Date(expiresAtMs),
      tracking_unit_id: ref.trackingUnitId,
      basket_id: ref.basketId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await writeMovement(
    trx,
    ref,
    consumer,
    { schemeId, kind, points, lotId: lot.id, expiresAtMs },
    returnId,
    nowMs,
  );
}

/**
 * Takes points from the consumer's unexpired lots, oldest expiry first (lots that never expire
 * last), and returns how many it took. The caller holds the consumer lock.
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
  preferBasket = false,
): Promise<number> {
  if (points <= 0) return 0;
  let q = liveLots(trx, ref.merchantId, consumer, nowMs)
    .select(['id', 'remaining'])
    .where('scheme_id', '=', schemeId);
  if (preferBasket) {
    // A return takes back the points of its own basket first.
    q = q.orderBy(
      sql`CASE WHEN tracking_unit_id = ${ref.trackingUnitId} AND basket_id = ${ref.basketId} THEN 0 ELSE 1 END`,
    );
  }
  const lots = await q
    .orderBy(sql`expires_at ASC NULLS LAST`)
    .orderBy('earned_at')
    .orderBy('id')
    .forUpdate()
    .execute();
  let left = points;
  for (const lot of lots) {
    if (left === 0) break;
    const take = Math.min(left, lot.remaining);
    await trx
      .updateTable('points_lots')
      .set({ remaining: lot.remaining - take })
      .where('id', '=', lot.id)
      .execute();
    await writeMovement(
      trx,
      ref,
      consumer,
      { schemeId, kind, points: -take, lotId: lot.id },
      returnId,
      nowMs,
    );
    left -= take;
  }
  return points - left;
}

/** A return gives spent points back as a new lot that does not expire before the original would. */
export function givePointsBack(
  trx: Transaction<DB>,
  ref: BasketRef,
  consumer: Consumer,
  schemeId: number,
  points: number,
  nowMs: number,
  expiresAtMs: number | null,
  returnId: string,
): Promise<void> {
  return addLot(trx, ref, consumer, schemeId, points, nowMs, expiresAtMs, 'return_spent', returnId);
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
