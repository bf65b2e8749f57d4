import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * What the consumer portal shows of a signed-in profile: points per scheme with the next expiry,
 * the balance and its movements, the purchases (newest first, paged) and the customer cards'
 * activity. Gift cards are never read here: their activity is not shown to anyone (POS
 * interface: a gift card has "no public consumer-portal access to its activity").
 */
export interface AccountOverview {
  readonly fullName: string | null;
  readonly email: string | null;
  readonly language: string | null;
  readonly merchantName: string;
  readonly currency: string;
  readonly balanceMinor: number;
  readonly points: { schemeName: string; points: number; nextExpiry: Date | null; expiringPoints: number }[];
  readonly movements: { time: Date; amountMinor: number; kind: string }[];
  readonly cards: { tokenId: string; state: string }[];
}

export async function accountOverview(
  db: Kysely<DB>,
  profileId: number,
  nowMs: number,
): Promise<AccountOverview | undefined> {
  const profile = await db
    .selectFrom('profiles as p')
    .innerJoin('merchants as m', 'm.id', 'p.merchant_id')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .select([
      'p.full_name',
      'p.email',
      'p.language',
      'm.display_name',
      'm.currency',
      'a.balance_minor',
      'p.account_id',
    ])
    .where('p.id', '=', profileId)
    .executeTakeFirst();
  if (!profile) return undefined;
  const now = new Date(nowMs);
  const lots = await db
    .selectFrom('points_lots as l')
    .innerJoin('loyalty_schemes as s', 's.id', 'l.scheme_id')
    .select(['s.name', 'l.remaining', 'l.expires_at'])
    .where('l.profile_id', '=', profileId)
    .where('l.remaining', '>', 0)
    .where((eb) => eb.or([eb('l.expires_at', 'is', null), eb('l.expires_at', '>', now)]))
    .execute();
  const byScheme = new Map<string, AccountOverview['points'][number]>();
  for (const lot of lots) {
    const prev = byScheme.get(lot.name) ?? {
      schemeName: lot.name,
      points: 0,
      nextExpiry: null,
      expiringPoints: 0,
    };
    const expires = lot.expires_at === null ? null : new Date(lot.expires_at);
    let { nextExpiry, expiringPoints } = prev;
    if (expires !== null) {
      if (nextExpiry === null || expires < nextExpiry) {
        nextExpiry = expires;
        expiringPoints = lot.remaining;
      } else if (expires.getTime() === nextExpiry.getTime()) {
        expiringPoints += lot.remaining;
      }
    }
    byScheme.set(lot.name, {
      schemeName: lot.name,
      points: prev.points + lot.remaining,
      nextExpiry,
      expiringPoints,
    });
  }
  const account = profile.account_id;
  const transfers = await db
    .selectFrom('ledger_transfers')
    .select(['created_at', 'amount_minor', 'kind', 'credit_account_id'])
    .where((eb) => eb.or([eb('debit_account_id', '=', account), eb('credit_account_id', '=', account)]))
    .orderBy('id', 'desc')
    .limit(20)
    .execute();
  const cards = await db
    .selectFrom('cards')
    .select(['token_id', 'state'])
    .where('profile_id', '=', profileId)
    .where('token_type', '=', 0)
    .orderBy('id')
    .execute();
  return {
    fullName: profile.full_name,
    email: profile.email,
    language: profile.language,
    merchantName: profile.display_name,
    currency: profile.currency,
    balanceMinor: Number(profile.balance_minor),
    points: [...byScheme.values()],
    movements: transfers.map((t) => ({
      time: new Date(t.created_at),
      amountMinor: t.credit_account_id === account ? Number(t.amount_minor) : -Number(t.amount_minor),
      kind: t.kind,
    })),
    cards: cards.map((c) => ({ tokenId: c.token_id, state: c.state })),
  };
}

export interface PurchaseRow {
  readonly time: Date;
  readonly timeOffsetMinutes: number;
  readonly totalMinor: number | null;
  readonly currency: string;
  readonly outletName: string | null;
  readonly receiptId: string | null;
  /** The customer card the purchase was made with, when one was. */
  readonly cardTokenId: string | null;
}

export const PURCHASES_PER_PAGE = 10;

/**
 * The profile's granted baskets, newest first: those the upload identified the profile for (a
 * linked customer card or a one-time password). `page` counts from 1; one more row than a page
 * is read to know whether there is a next one.
 */
export async function purchasesOf(
  db: Kysely<DB>,
  profileId: number,
  page: number,
): Promise<{ rows: PurchaseRow[]; hasMore: boolean }> {
  const rows = await db
    .selectFrom('baskets as b')
    .leftJoin('outlets as o', (j) =>
      j.onRef('o.merchant_id', '=', 'b.merchant_id').onRef('o.id', '=', 'b.outlet_id'),
    )
    .leftJoin('receipts as r', (j) =>
      j
        .onRef('r.merchant_id', '=', 'b.merchant_id')
        .on('r.kind', '=', 'pos_basket')
        .on('r.source_ref', '=', sql<string>`b.tracking_unit_id || '/' || b.basket_id`),
    )
    .leftJoin('cards as c', (j) =>
      j
        .onRef('c.merchant_id', '=', 'b.merchant_id')
        .onRef('c.token_id', '=', 'b.consumer_token')
        .on('c.token_type', '=', 0),
    )
    .select([
      'b.granted_at',
      'b.timestamp_utc',
      'b.timestamp_offset_minutes',
      'b.total_value_minor',
      'b.currency',
      'o.name as outlet_name',
      'r.id as receipt_id',
      'c.token_id as card_token',
    ])
    .where('b.profile_id', '=', profileId)
    .where('b.granted_at', 'is not', null)
    .orderBy('b.granted_at', 'desc')
    .orderBy('b.basket_id', 'desc')
    .limit(PURCHASES_PER_PAGE + 1)
    .offset((page - 1) * PURCHASES_PER_PAGE)
    .execute();
  return {
    rows: rows.slice(0, PURCHASES_PER_PAGE).map((r) => ({
      time: new Date(r.timestamp_utc),
      timeOffsetMinutes: r.timestamp_offset_minutes,
      totalMinor: r.total_value_minor === null ? null : Number(r.total_value_minor),
      currency: r.currency,
      outletName: r.outlet_name ?? null,
      receiptId: r.receipt_id ?? null,
      cardTokenId: r.card_token ?? null,
    })),
    hasMore: rows.length > PURCHASES_PER_PAGE,
  };
}
