import { type Kysely, sql } from 'kysely';
import { type StatementPage, accountStatement } from '../ledger/statement.store.js';
import type { DB } from '../store/schema.js';

/**
 * What the portal shows of a customer (docs/decisions.md, "Finding baskets and customers"): the
 * one balance history of the account a card pays from, every ledger transfer on it whichever
 * interface booked it, and a card's purchases in figures.
 */

export type MovementChannel = 'till' | 'checkout' | 'portal' | 'operator';

export interface BalanceMovement {
  transactionId: string;
  kind: string;
  /** Signed: credited to the account (+) or debited from it (-), minor units. */
  amountMinor: number;
  /** The account's balance after this movement: the sum of the movements up to it. */
  balanceAfterMinor: number;
  channel: MovementChannel;
  /** The till that booked it, by its name; null for the other channels. */
  terminal: string | null;
  createdAt: string;
}

/** A movement with the ledger's id of its transfer, the key its list is paged by. */
export type KeyedMovement = BalanceMovement & { id: number };

/**
 * The account's transfers, newest first, a page at a time (the ledger's statement): those before
 * the transfer `beforeId` (from the newest when null), booked from `fromMs` (inclusive) to `toMs`
 * (exclusive) when given, at most `limit`. Each carries the running balance summed from the
 * account's first transfer, so the newest's balanceAfterMinor is the balance on every page, and a
 * cut by time changes no figure.
 */
export async function balanceMovements(
  db: Kysely<DB>,
  merchantId: number,
  accountId: number,
  page: StatementPage,
): Promise<KeyedMovement[]> {
  const rows = await accountStatement(db, merchantId, accountId, page);
  return rows.map((r) => {
    const channel: MovementChannel =
      r.trackingUnitId !== null
        ? 'till'
        : r.authorisedBy === 'checkout'
          ? 'checkout'
          : r.authorisedBy === 'operator'
            ? 'operator'
            : 'portal';
    return {
      id: r.id,
      transactionId: r.transactionId,
      kind: r.kind,
      amountMinor: r.amountMinor,
      balanceAfterMinor: r.balanceAfterMinor,
      channel,
      terminal: r.terminal,
      createdAt: r.createdAt.toISOString(),
    };
  });
}

export interface CardPurchases {
  /** Granted baskets bought with the card, and checkout orders paid from its balance. */
  purchases: number;
  /** Of them, the checkout orders. */
  orders: number;
  /** Days (in the merchant's time zone) with at least one of them. */
  visits: number;
  /** The baskets' sales from the positions less rewards, and what the orders charged less refunds, minor units. */
  lifetimeSpendMinor: number;
}

/**
 * A card's purchases in figures: its granted baskets, and, when it is linked to a profile, the
 * checkout orders paid from the balance it pays from (the profile's): the orders that charged it,
 * as its balance history shows them.
 */
export async function cardPurchases(
  db: Kysely<DB>,
  merchantId: number,
  card: { tokenId: string; profileId: number | null },
  timeZone: string,
): Promise<CardPurchases> {
  const orders =
    card.profileId === null
      ? sql``
      : sql`UNION ALL
        SELECT (o.created_at AT TIME ZONE ${timeZone})::date, o.charged_minor - o.refunded_minor, 1, false
          FROM checkout_orders o
         WHERE o.merchant_id = ${merchantId} AND o.profile_id = ${card.profileId} AND o.charged_minor > 0`;
  // A return takes off what the till refunded (its line gross less the rewards it refunded), as the
  // dashboard counts returns; it is no purchase and no visit of its own.
  const r = await sql<{ purchases: string; orders: string; visits: string; spend: string }>`
    SELECT count(*) FILTER (WHERE NOT p.is_return) AS purchases, COALESCE(sum(p.is_order), 0) AS orders,
           count(DISTINCT p.day) FILTER (WHERE NOT p.is_return) AS visits,
           COALESCE(sum(p.spend), 0) AS spend
      FROM (SELECT (b.timestamp_utc AT TIME ZONE ${timeZone})::date AS day,
                   b.gross_minor - COALESCE(b.reward_minor, 0) AS spend, 0 AS is_order, false AS is_return
              FROM baskets b
             WHERE b.merchant_id = ${merchantId} AND b.granted_at IS NOT NULL
               AND (b.consumer_token = ${card.tokenId} OR b.gift_card_id = ${card.tokenId})
            UNION ALL
            SELECT NULL::date, -(x.returned_gross_minor
                     - COALESCE((x.response->'booking'->>'refundedMinor')::bigint, 0)), 0, true
              FROM basket_returns x
              JOIN baskets b ON b.tracking_unit_id = x.tracking_unit_id AND b.basket_id = x.basket_id
             WHERE b.merchant_id = ${merchantId} AND b.granted_at IS NOT NULL
               AND (b.consumer_token = ${card.tokenId} OR b.gift_card_id = ${card.tokenId})
               AND x.returned_gross_minor IS NOT NULL
            ${orders}) AS p`.execute(db);
  const row = r.rows[0];
  return {
    purchases: Number(row?.purchases ?? 0),
    orders: Number(row?.orders ?? 0),
    visits: Number(row?.visits ?? 0),
    lifetimeSpendMinor: Number(row?.spend ?? 0),
  };
}

export interface CardOrder {
  orderId: string;
  /** The shop's own key of the order (`basketId` of the checkout interface). */
  basketId: string;
  /** The shop (checkout client) it was placed in. */
  shop: string | null;
  createdAt: string;
  totalGrossMinor: number;
  /** Paid from the balance. */
  chargedMinor: number;
  /** Given back to the balance by refunds so far. */
  refundedMinor: number;
  status: 'completed' | 'refunded';
}

/** The newest checkout orders of a profile that charged its balance, newest first. */
export async function chargedOrders(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  limit: number,
): Promise<CardOrder[]> {
  const rows = await db
    .selectFrom('checkout_orders as o')
    .leftJoin('checkout_clients as c', (j) =>
      j.onRef('c.merchant_id', '=', 'o.merchant_id').onRef('c.id', '=', 'o.client_id'),
    )
    .select([
      'o.id',
      'o.basket_id',
      'c.name as shop',
      'o.created_at',
      'o.total_gross_minor',
      'o.charged_minor',
      'o.refunded_minor',
      'o.status',
    ])
    .where('o.merchant_id', '=', merchantId)
    .where('o.profile_id', '=', profileId)
    .where('o.charged_minor', '>', 0)
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((o) => ({
    orderId: o.id,
    basketId: o.basket_id,
    shop: o.shop,
    createdAt: o.created_at.toISOString(),
    totalGrossMinor: Number(o.total_gross_minor),
    chargedMinor: Number(o.charged_minor),
    refundedMinor: Number(o.refunded_minor),
    status: o.status === 'refunded' ? 'refunded' : 'completed',
  }));
}

export interface ProfileView {
  profileId: number;
  fullName: string | null;
  email: string | null;
  language: string | null;
  accountId: number;
  balanceMinor: number;
  currency: string;
  cards: { tokenId: string; tokenType: 'customer' | 'gift'; state: string }[];
}

export async function profileView(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
): Promise<ProfileView | null> {
  const p = await db
    .selectFrom('profiles as p')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .select(['p.id', 'p.full_name', 'p.email', 'p.language', 'p.account_id', 'a.balance_minor', 'a.currency'])
    .where('p.merchant_id', '=', merchantId)
    .where('p.id', '=', profileId)
    .executeTakeFirst();
  if (!p) return null;
  const cards = await db
    .selectFrom('cards')
    .select(['token_id', 'token_type', 'state'])
    .where('merchant_id', '=', merchantId)
    .where('profile_id', '=', profileId)
    .where('state', '<>', 'released')
    .orderBy('id')
    .execute();
  return {
    profileId: p.id,
    fullName: p.full_name,
    email: p.email,
    language: p.language,
    accountId: p.account_id,
    balanceMinor: Number(p.balance_minor),
    currency: p.currency.trim(),
    cards: cards.map((c) => ({
      tokenId: c.token_id,
      tokenType: Number(c.token_type) === 1 ? 'gift' : 'customer',
      state: c.state,
    })),
  };
}
