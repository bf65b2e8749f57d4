import type { Kysely } from 'kysely';
import type { PageRequest } from '../shared/paging.js';
import type { DB } from '../store/schema.js';
import type { StoredOrder } from '../orders/order.store.js';

/** A basket a till sent, as the dry run starts from it: its till and its body as sent. */
export interface RecentBasket {
  trackingUnitId: string;
  instanceName: string;
  basketId: string;
  uploadedAt: string;
  body: Record<string, unknown>;
  /** The upload's query: the consumer's card and the gift card, as the till named them. */
  consumerToken: string | null;
  giftCardId: string | null;
  /** The consumer profile its upload identified (a card or a one-time password), if any. */
  profileId: number | null;
  /** The sort key: the basket's time (ms), its till and id. */
  key: [number, string, string];
}

/**
 * The merchant's baskets by their time, newest first (the body without its PDF, as stored): one
 * page (`limit + 1` rows read) after the key of the cursor (time, till, basket id).
 */
export async function recentBaskets(
  db: Kysely<DB>,
  merchantId: number,
  page: PageRequest,
): Promise<RecentBasket[]> {
  let q = db
    .selectFrom('baskets as b')
    .innerJoin('tracking_units as tu', 'tu.id', 'b.tracking_unit_id')
    .select([
      'b.tracking_unit_id',
      'tu.instance_name',
      'b.basket_id',
      'b.uploaded_at',
      'b.timestamp_utc',
      'b.body',
      'b.consumer_token',
      'b.gift_card_id',
      'b.profile_id',
    ])
    .where('b.merchant_id', '=', merchantId);
  if (page.after !== null) {
    const [ms, unit, basket] = page.after;
    q = q.where((eb) =>
      eb(
        eb.refTuple('b.timestamp_utc', 'b.tracking_unit_id', 'b.basket_id'),
        '<',
        eb.tuple(new Date(Number(ms)), String(unit), String(basket)),
      ),
    );
  }
  const rows = await q
    .orderBy('b.timestamp_utc', 'desc')
    .orderBy('b.tracking_unit_id', 'desc')
    .orderBy('b.basket_id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return rows.map((r) => ({
    trackingUnitId: r.tracking_unit_id,
    instanceName: r.instance_name,
    basketId: r.basket_id,
    uploadedAt: r.uploaded_at.toISOString(),
    body: (typeof r.body === 'string' ? JSON.parse(r.body) : r.body) as Record<string, unknown>,
    consumerToken: r.consumer_token,
    giftCardId: r.gift_card_id,
    profileId: r.profile_id,
    key: [new Date(r.timestamp_utc).getTime(), r.tracking_unit_id, r.basket_id],
  }));
}

/** An online order as the dry run over recent purchases evaluates it again: its stored pricing. */
export interface RecentOrder {
  orderId: string;
  /** The app's basketId of the order. */
  basketId: string;
  /** The customer's profile the order named. */
  profileId: number;
  priced: StoredOrder;
}

/** The merchant's newest online orders, by the time they were placed, newest first. */
export async function recentOrders(
  db: Kysely<DB>,
  merchantId: number,
  limit: number,
): Promise<RecentOrder[]> {
  const rows = await db
    .selectFrom('checkout_orders')
    .select(['id', 'basket_id', 'profile_id', 'priced'])
    .where('merchant_id', '=', merchantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    orderId: r.id,
    basketId: r.basket_id,
    profileId: r.profile_id,
    priced: r.priced,
  }));
}
