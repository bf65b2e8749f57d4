import { type Kysely, type Transaction, sql } from 'kysely';
import type { DB, PointsMovementKind } from '../store/schema.js';

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

type MovementKind = Exclude<PointsMovementKind, 'opening'>;

/**
 * The immutable record of one change of a lot, written in the same transaction as the change of
 * the lot (the projection): `npm run ledger:verify` checks that each lot holds the sum of its
 * movements (docs/decisions.md "Points history").
 */
async function writeMovement(
  trx: Transaction<DB>,
  ref: BasketRef | null,
  consumer: Consumer,
  change: {
    schemeId: number;
    kind: MovementKind;
    points: number;
    lotId: number;
    expiresAtMs?: number | null;
    linkCardId?: number;
  },
  returnId: string | null,
  nowMs: number,
  merchantId = ref?.merchantId,
): Promise<void> {
  if (merchantId === undefined) throw new Error('a points movement needs its merchant');
  await trx
    .insertInto('points_movements')
    .values({
      merchant_id: merchantId,
      scheme_id: change.schemeId,
      ...owner(consumer),
      kind: change.kind,
      points: change.points,
      lot_id: change.lotId,
      tracking_unit_id: ref?.trackingUnitId ?? null,
      basket_id: ref?.basketId ?? null,
      return_id: returnId,
      created_at: new Date(nowMs),
      expires_at: change.expiresAtMs == null ? null : new Date(change.expiresAtMs),
      link_card_id: change.linkCardId ?? null,
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
 * Counts the campaign usages of a granted basket: the projection row the engine's reads sum,
 * and its immutable `use` movement.
 */
export async function recordUsages(
  trx: Transaction<DB>,
  ref: BasketRef,
  consumer: Consumer | null,
  usages: readonly { campaignId: number; count: number }[],
  nowMs: number,
): Promise<void> {
  const holder = consumer ? owner(consumer) : { profile_id: null, card_id: null };
  const rows = usages
    .filter((u) => u.count > 0)
    .map((u) => ({
      merchant_id: ref.merchantId,
      tracking_unit_id: ref.trackingUnitId,
      basket_id: ref.basketId,
      campaign_id: u.campaignId,
      ...holder,
      used: u.count,
      created_at: new Date(nowMs),
    }));
  if (rows.length === 0) return;
  await trx.insertInto('campaign_usages').values(rows).execute();
  await trx
    .insertInto('campaign_usage_movements')
    .values(
      rows.map((r) => ({
        merchant_id: r.merchant_id,
        tracking_unit_id: r.tracking_unit_id,
        basket_id: r.basket_id,
        campaign_id: r.campaign_id,
        profile_id: r.profile_id,
        card_id: r.card_id,
        kind: 'use' as const,
        count: r.used,
        return_id: null,
        link_card_id: null,
        created_at: r.created_at,
      })),
    )
    .execute();
}

/**
 * A return releases the basket's usage of a campaign, once: the `release` movement is appended
 * and the projection marks the usage released. False when it was released before.
 */
export async function releaseUsage(
  trx: Transaction<DB>,
  ref: BasketRef,
  campaignId: number,
  returnId: string,
  nowMs: number,
): Promise<boolean> {
  const usage = await trx
    .updateTable('campaign_usages')
    .set({ released: sql<number>`used` })
    .where('tracking_unit_id', '=', ref.trackingUnitId)
    .where('basket_id', '=', ref.basketId)
    .where('campaign_id', '=', campaignId)
    .where(sql<boolean>`released < used`)
    .returning(['merchant_id', 'profile_id', 'card_id', 'used'])
    .executeTakeFirst();
  if (!usage) return false;
  await trx
    .insertInto('campaign_usage_movements')
    .values({
      merchant_id: usage.merchant_id,
      tracking_unit_id: ref.trackingUnitId,
      basket_id: ref.basketId,
      campaign_id: campaignId,
      profile_id: usage.profile_id,
      card_id: usage.card_id,
      kind: 'release',
      count: -usage.used,
      return_id: returnId,
      link_card_id: null,
      created_at: new Date(nowMs),
    })
    .execute();
  return true;
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
  const from: Consumer = { cardId };
  const to: Consumer = { profileId };
  const lots = await trx
    .updateTable('points_lots')
    .set({ card_id: null, profile_id: profileId })
    .where('merchant_id', '=', merchantId)
    .where('card_id', '=', cardId)
    .returning(['id', 'scheme_id', 'remaining'])
    .execute();
  lots.sort((a, b) => a.id - b.id);
  for (const lot of lots) {
    const change = { schemeId: lot.scheme_id, lotId: lot.id, linkCardId: cardId };
    await writeMovement(
      trx,
      null,
      from,
      { ...change, kind: 'move_out', points: -lot.remaining },
      null,
      nowMs,
      merchantId,
    );
    await writeMovement(
      trx,
      null,
      to,
      { ...change, kind: 'move_in', points: lot.remaining },
      null,
      nowMs,
      merchantId,
    );
  }
  const usages = await trx
    .updateTable('campaign_usages')
    .set({ card_id: null, profile_id: profileId })
    .where('merchant_id', '=', merchantId)
    .where('card_id', '=', cardId)
    .returning(['tracking_unit_id', 'basket_id', 'campaign_id', 'used', 'released'])
    .execute();
  if (usages.length === 0) return;
  const base = (u: (typeof usages)[number]) => ({
    merchant_id: merchantId,
    tracking_unit_id: u.tracking_unit_id,
    basket_id: u.basket_id,
    campaign_id: u.campaign_id,
    return_id: null,
    link_card_id: cardId,
    created_at: new Date(nowMs),
  });
  await trx
    .insertInto('campaign_usage_movements')
    .values(
      usages.flatMap((u) => [
        { ...base(u), ...owner(from), kind: 'move_out' as const, count: -(u.used - u.released) },
        { ...base(u), ...owner(to), kind: 'move_in' as const, count: u.used - u.released },
      ]),
    )
    .execute();
}
