import { type Kysely, type Transaction, sql } from 'kysely';
import type { DB } from '../store/schema.js';

type Db = Kysely<DB> | Transaction<DB>;

/** Who collects points: a profile, or a customer card not linked to one. */
export type Consumer =
  | { readonly profileId: number; readonly cardId?: undefined }
  | { readonly cardId: number; readonly profileId?: undefined };

export interface BasketRef {
  readonly merchantId: number;
  readonly trackingUnitId: string;
  readonly basketId: string;
}

function owner(consumer: Consumer): { profile_id: number | null; card_id: number | null } {
  return consumer.profileId !== undefined
    ? { profile_id: consumer.profileId, card_id: null }
    : { profile_id: null, card_id: consumer.cardId };
}

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

/** How often the consumer used each campaign in granted baskets (returns release usages). */
export async function campaignUsages(
  db: Db,
  merchantId: number,
  consumer: Consumer,
  campaignIds: readonly number[],
): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (campaignIds.length === 0) return out;
  const o = owner(consumer);
  let q = db
    .selectFrom('campaign_usages')
    .select(['campaign_id', sql<number>`sum(used - released)::integer`.as('used')])
    .where('merchant_id', '=', merchantId)
    .where('campaign_id', 'in', [...campaignIds]);
  q = o.profile_id !== null ? q.where('profile_id', '=', o.profile_id) : q.where('card_id', '=', o.card_id);
  for (const row of await q.groupBy('campaign_id').execute()) out.set(row.campaign_id, row.used);
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

/** The immutable record of one change of a lot. */
async function writeMovement(
  trx: Transaction<DB>,
  ref: BasketRef,
  consumer: Consumer,
  change: {
    schemeId: number;
    kind: 'earn' | 'spend' | 'return_earned' | 'return_spent';
    points: number;
    lotId: number;
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
  await writeMovement(trx, ref, consumer, { schemeId, kind, points, lotId: lot.id }, returnId, nowMs);
}

/** Points a granted basket earns, as a lot that expires when the scheme says. */
export function earnPoints(
  trx: Transaction<DB>,
  ref: BasketRef,
  consumer: Consumer,
  schemeId: number,
  points: number,
  nowMs: number,
  expiresAtMs: number | null,
): Promise<void> {
  return addLot(trx, ref, consumer, schemeId, points, nowMs, expiresAtMs, 'earn', null);
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

/** Counts the campaign usages of a granted basket. */
export async function recordUsages(
  trx: Transaction<DB>,
  ref: BasketRef,
  consumer: Consumer | null,
  usages: readonly { campaignId: number; count: number }[],
  nowMs: number,
): Promise<void> {
  const rows = usages
    .filter((u) => u.count > 0)
    .map((u) => ({
      merchant_id: ref.merchantId,
      tracking_unit_id: ref.trackingUnitId,
      basket_id: ref.basketId,
      campaign_id: u.campaignId,
      ...(consumer ? owner(consumer) : { profile_id: null, card_id: null }),
      used: u.count,
      created_at: new Date(nowMs),
    }));
  if (rows.length > 0) await trx.insertInto('campaign_usages').values(rows).execute();
}

/** A card linked to a profile brings its points and usages along. */
export async function moveCardLoyaltyToProfile(
  trx: Transaction<DB>,
  merchantId: number,
  cardId: number,
  profileId: number,
  nowMs: number,
): Promise<void> {
  const moved = await trx
    .updateTable('points_lots')
    .set({ card_id: null, profile_id: profileId })
    .where('merchant_id', '=', merchantId)
    .where('card_id', '=', cardId)
    .returning(['id', 'scheme_id', 'remaining'])
    .execute();
  if (moved.length > 0) {
    await trx
      .insertInto('points_movements')
      .values(
        moved.map((lot) => ({
          merchant_id: merchantId,
          scheme_id: lot.scheme_id,
          profile_id: profileId,
          card_id: cardId,
          kind: 'move' as const,
          points: lot.remaining,
          lot_id: lot.id,
          tracking_unit_id: null,
          basket_id: null,
          return_id: null,
          created_at: new Date(nowMs),
        })),
      )
      .execute();
  }
  await trx
    .updateTable('campaign_usages')
    .set({ card_id: null, profile_id: profileId })
    .where('merchant_id', '=', merchantId)
    .where('card_id', '=', cardId)
    .execute();
}
