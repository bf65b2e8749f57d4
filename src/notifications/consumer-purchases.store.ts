import { type Kysely, sql } from 'kysely';
import { zoneOffsetMinutes } from '../shared/time.js';
import type { DB } from '../store/schema.js';
import type { ReceiptKind } from '../store/tables/outbox.js';
import { posBasketSourceRefOf } from '../receipts/receipt.store.js';

/**
 * The consumer portal's purchases (docs/decisions.md, "Purchases, receipts and the purchase
 * mail"): the POS baskets the upload identified the profile for, once granted, and the checkout
 * orders placed for it, together, newest first by the time of the sale: a basket's as the till
 * sent it, an order's when it was booked, shown in the merchant's time zone.
 */
export interface PurchaseKey {
  readonly kind: ReceiptKind;
  readonly merchantId: number;
  /** The receipt's source key: `{trackingUnitId}/{basketId}` or the order's id. */
  readonly sourceRef: string;
  readonly time: Date;
  readonly timeOffsetMinutes: number;
  /** The outlet of a basket, the shop (checkout client) of an order. */
  readonly place: string | null;
  readonly receiptId: string | null;
  /** The customer card the purchase was made with, when one was. */
  readonly cardTokenId: string | null;
}

export const PURCHASES_PER_PAGE = 10;

/**
 * One page of the profile's purchases. Each kind is read newest first, as many as the pages up to
 * this one hold and one more, and the lists are merged: `page` counts from 1, and the extra row
 * tells whether there is a next page. The baskets are those the upload identified the profile for
 * and those made with one of its customer cards before the card was linked to it (since the card
 * was registered, with no profile on the basket): the card's points came with it, and so do the
 * purchases that earned them. With `beforeMs`, only those sold before it (a basket by the till's
 * time of the sale, an order by its booking: the times the list shows).
 */
export async function purchasesOf(
  db: Kysely<DB>,
  profileId: number,
  page: number,
  beforeMs?: number,
): Promise<{ rows: PurchaseKey[]; hasMore: boolean }> {
  const wanted = page * PURCHASES_PER_PAGE + 1;
  const before = beforeMs === undefined ? null : new Date(beforeMs);
  const cards = await db
    .selectFrom('cards')
    .select(['merchant_id', 'token_id', 'registered_at'])
    .where('profile_id', '=', profileId)
    .where('token_type', '=', 0)
    .execute();
  // A profile and its cards are one merchant's.
  const merchantId = cards[0]?.merchant_id;
  const baskets = await basketPurchases(db, wanted, before, (q) => q.where('b.profile_id', '=', profileId));
  const beforeLinking =
    merchantId === undefined
      ? []
      : await basketPurchases(db, wanted, before, (q) =>
          q
            .where('b.profile_id', 'is', null)
            .where('b.merchant_id', '=', merchantId)
            .where((eb) =>
              eb.or(
                cards.map((c) =>
                  eb.and([
                    eb('b.consumer_token', '=', c.token_id),
                    eb('b.uploaded_at', '>=', c.registered_at),
                  ]),
                ),
              ),
            ),
        );
  const orders = await db
    .selectFrom('checkout_orders as o')
    .innerJoin('merchants as m', 'm.id', 'o.merchant_id')
    .leftJoin('checkout_clients as c', (j) =>
      j.onRef('c.merchant_id', '=', 'o.merchant_id').onRef('c.id', '=', 'o.client_id'),
    )
    .select(['o.merchant_id', 'o.id', 'o.created_at', 'o.receipt_id', 'c.name as shop', 'm.time_zone'])
    .where('o.profile_id', '=', profileId)
    .$if(before !== null, (q) => q.where('o.created_at', '<', before ?? new Date(0)))
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(wanted)
    .execute();
  const all: PurchaseKey[] = [
    ...[...baskets, ...beforeLinking].map((b) => ({
      kind: 'pos_basket' as const,
      merchantId: b.merchant_id,
      sourceRef: `${b.tracking_unit_id}/${b.basket_id}`,
      time: new Date(b.timestamp_utc),
      timeOffsetMinutes: b.timestamp_offset_minutes,
      place: b.outlet_name ?? null,
      receiptId: b.receipt_id ?? null,
      cardTokenId: b.card_token ?? null,
    })),
    ...orders.map((o) => ({
      kind: 'checkout_order' as const,
      merchantId: o.merchant_id,
      sourceRef: o.id,
      time: new Date(o.created_at),
      timeOffsetMinutes: zoneOffsetMinutes(o.time_zone, new Date(o.created_at).getTime()),
      place: o.shop ?? null,
      receiptId: o.receipt_id,
      cardTokenId: null,
    })),
  ].sort((a, b) => b.time.getTime() - a.time.getTime() || (a.sourceRef < b.sourceRef ? 1 : -1));
  const from = (page - 1) * PURCHASES_PER_PAGE;
  return {
    rows: all.slice(from, from + PURCHASES_PER_PAGE),
    hasMore: all.length > from + PURCHASES_PER_PAGE,
  };
}

/** Granted POS baskets of a profile, newest first: the joins and columns, the rows chosen by `which`. */
function basketPurchases(
  db: Kysely<DB>,
  wanted: number,
  before: Date | null,
  which: (q: BasketQuery) => BasketQuery,
) {
  return which(basketQuery(db))
    .$if(before !== null, (q) => q.where('b.timestamp_utc', '<', before ?? new Date(0)))
    .orderBy('b.timestamp_utc', 'desc')
    .orderBy('b.basket_id', 'desc')
    .limit(wanted)
    .execute();
}

type BasketQuery = ReturnType<typeof basketQuery>;

function basketQuery(db: Kysely<DB>) {
  return (
    db
      .selectFrom('baskets as b')
      .leftJoin('outlets as o', (j) =>
        j.onRef('o.merchant_id', '=', 'b.merchant_id').onRef('o.id', '=', 'b.outlet_id'),
      )
      .leftJoin('receipts as r', (j) =>
        j
          .onRef('r.merchant_id', '=', 'b.merchant_id')
          .on('r.kind', '=', 'pos_basket')
          .on('r.source_ref', '=', posBasketSourceRefOf('b')),
      )
      .leftJoin('cards as c', (j) =>
        j
          .onRef('c.merchant_id', '=', 'b.merchant_id')
          .onRef('c.token_id', '=', 'b.consumer_token')
          .on('c.token_type', '=', 0),
      )
      .select([
        'b.merchant_id',
        'b.tracking_unit_id',
        'b.basket_id',
        'b.timestamp_utc',
        'b.timestamp_offset_minutes',
        'o.name as outlet_name',
        'r.id as receipt_id',
        'c.token_id as card_token',
      ])
      .where('b.granted_at', 'is not', null)
      // Bought or paid with a gift card: "no public consumer-portal access to its activity"
      // (docs/decisions.md, "Gift-card privacy and hardened pages").
      .where(sql<boolean>`b.result->>'giftCard' IS NULL`)
  );
}
