import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';

/** Baskets of one merchant for the portal: search and detail. A foreign basket is not found. */

export interface BasketFilter {
  merchantId: number;
  fromMs: number | null;
  toMs: number | null;
  outletId: number | null;
  trackingUnitId: string | null;
  /** A customer card (consumer token) or gift card id. */
  card: string | null;
  limit: number;
}

export interface BasketListing {
  trackingUnitId: string;
  basketId: string;
  outletId: number;
  timestamp: string;
  currency: string;
  totalValueMinor: number | null;
  rewardMinor: number;
  card: string | null;
  granted: boolean;
}

export async function searchBaskets(db: Kysely<DB>, f: BasketFilter): Promise<BasketListing[]> {
  let q = db
    .selectFrom('baskets')
    .select([
      'tracking_unit_id',
      'basket_id',
      'outlet_id',
      'timestamp_utc',
      'currency',
      'total_value_minor',
      'consumer_token',
      'gift_card_id',
      'granted_at',
      sql<string | null>`reward_minor`.as('reward_minor'),
    ])
    .where('merchant_id', '=', f.merchantId);
  if (f.fromMs !== null) q = q.where('timestamp_utc', '>=', new Date(f.fromMs));
  if (f.toMs !== null) q = q.where('timestamp_utc', '<', new Date(f.toMs));
  if (f.outletId !== null) q = q.where('outlet_id', '=', f.outletId);
  if (f.trackingUnitId !== null) q = q.where('tracking_unit_id', '=', f.trackingUnitId);
  const card = f.card;
  if (card !== null)
    q = q.where((eb) => eb.or([eb('consumer_token', '=', card), eb('gift_card_id', '=', card)]));
  const rows = await q.orderBy('timestamp_utc', 'desc').orderBy('basket_id').limit(f.limit).execute();
  return rows.map((r) => ({
    trackingUnitId: r.tracking_unit_id,
    basketId: r.basket_id,
    outletId: Number(r.outlet_id),
    timestamp: r.timestamp_utc.toISOString(),
    currency: r.currency.trim(),
    totalValueMinor: r.total_value_minor === null ? null : Number(r.total_value_minor),
    rewardMinor: Number(r.reward_minor ?? 0),
    card: r.consumer_token ?? r.gift_card_id,
    granted: r.granted_at !== null,
  }));
}

export interface BasketDetail extends BasketListing {
  offsetMinutes: number;
  uploadedAt: string;
  grantedAt: string | null;
  redeemedInPos: boolean | null;
  /** The rewards and points as the grant answered them (none before the grant). */
  rewards: { name: string; couponId: number; positionId: number; valueMajor: number }[];
  loyalty: { loyaltyId: number; name: string; previousPoints: number; newPoints: number }[];
  returns: { returnId: string; createdAt: string }[];
}

export async function basketDetail(
  db: Kysely<DB>,
  merchantId: number,
  trackingUnitId: string,
  basketId: string,
): Promise<BasketDetail | null> {
  const r = await db
    .selectFrom('baskets')
    .select([
      'tracking_unit_id',
      'basket_id',
      'outlet_id',
      'timestamp_utc',
      'timestamp_offset_minutes',
      'currency',
      'total_value_minor',
      'consumer_token',
      'gift_card_id',
      'uploaded_at',
      'granted_at',
      'redeemed_in_pos',
      'grant_result',
      sql<string | null>`reward_minor`.as('reward_minor'),
    ])
    .where('merchant_id', '=', merchantId)
    .where('tracking_unit_id', '=', trackingUnitId)
    .where('basket_id', '=', basketId)
    .executeTakeFirst();
  if (!r) return null;
  const returns = await db
    .selectFrom('basket_returns')
    .select(['return_id', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where('tracking_unit_id', '=', trackingUnitId)
    .where('basket_id', '=', basketId)
    .orderBy('created_at')
    .execute();
  const response = r.grant_result?.response;
  return {
    trackingUnitId: r.tracking_unit_id,
    basketId: r.basket_id,
    outletId: Number(r.outlet_id),
    timestamp: r.timestamp_utc.toISOString(),
    offsetMinutes: r.timestamp_offset_minutes,
    currency: r.currency.trim(),
    totalValueMinor: r.total_value_minor === null ? null : Number(r.total_value_minor),
    rewardMinor: Number(r.reward_minor ?? 0),
    card: r.consumer_token ?? r.gift_card_id,
    granted: r.granted_at !== null,
    uploadedAt: r.uploaded_at.toISOString(),
    grantedAt: r.granted_at === null ? null : r.granted_at.toISOString(),
    redeemedInPos: r.redeemed_in_pos,
    rewards: (response?.Rewards ?? []).map((x) => ({
      name: x.Name,
      couponId: x.CouponId,
      positionId: x.RewardTriggeringPositionId,
      valueMajor: x.GrossRewardValue,
    })),
    loyalty: (response?.LoyaltyInfo ?? []).map((l) => ({
      loyaltyId: l.LoyaltyId,
      name: l.Name,
      previousPoints: l.Details[0]?.PreviousPoints ?? 0,
      newPoints: l.Details[l.Details.length - 1]?.NewPoints ?? 0,
    })),
    returns: returns.map((x) => ({ returnId: x.return_id, createdAt: x.created_at.toISOString() })),
  };
}

/** When each terminal of the merchant last uploaded a basket. */
export async function terminalsLastSeen(db: Kysely<DB>, merchantId: number): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('baskets')
    .select(['tracking_unit_id', (eb) => eb.fn.max('uploaded_at').as('last')])
    .where('merchant_id', '=', merchantId)
    .groupBy('tracking_unit_id')
    .execute();
  return new Map(rows.map((r) => [r.tracking_unit_id, new Date(r.last).toISOString()]));
}
