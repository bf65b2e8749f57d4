import { type Kysely, sql } from 'kysely';
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

/**
 * Every transfer on the account, newest first, each with the running balance summed from the
 * first: the newest's balanceAfterMinor is the sum of all that are listed.
 */
export async function balanceMovements(
  db: Kysely<DB>,
  merchantId: number,
  accountId: number,
): Promise<BalanceMovement[]> {
  const rows = await db
    .selectFrom('ledger_transfers as t')
    .leftJoin('tracking_units as u', 'u.id', 't.tracking_unit_id')
    .select([
      't.id',
      't.transaction_id',
      't.kind',
      't.amount_minor',
      't.credit_account_id',
      't.tracking_unit_id',
      't.authorised_by',
      'u.instance_name',
      't.created_at',
    ])
    .where('t.merchant_id', '=', merchantId)
    .where((eb) =>
      eb.or([eb('t.credit_account_id', '=', accountId), eb('t.debit_account_id', '=', accountId)]),
    )
    .orderBy('t.id')
    .execute();
  let balance = 0;
  const out = rows.map((r) => {
    const amount =
      Number(r.credit_account_id) === accountId ? Number(r.amount_minor) : -Number(r.amount_minor);
    balance += amount;
    const channel: MovementChannel =
      r.tracking_unit_id !== null
        ? 'till'
        : r.authorised_by === 'checkout'
          ? 'checkout'
          : r.authorised_by === 'operator'
            ? 'operator'
            : 'portal';
    return {
      transactionId: r.transaction_id,
      kind: r.kind,
      amountMinor: amount,
      balanceAfterMinor: balance,
      channel,
      terminal: r.instance_name,
      createdAt: r.created_at.toISOString(),
    };
  });
  return out.reverse();
}

export interface CardPurchases {
  /** Granted baskets bought with the card. */
  purchases: number;
  /** Days (in the merchant's time zone) with at least one of them. */
  visits: number;
  /** Their sales from the positions, less rewards, minor units. */
  lifetimeSpendMinor: number;
}

export async function cardPurchases(
  db: Kysely<DB>,
  merchantId: number,
  tokenId: string,
  timeZone: string,
): Promise<CardPurchases> {
  const r = await db
    .selectFrom('baskets')
    .select([
      sql<string>`count(*)`.as('purchases'),
      sql<string>`count(DISTINCT (timestamp_utc AT TIME ZONE ${timeZone})::date)`.as('visits'),
      sql<string>`COALESCE(sum(gross_minor - COALESCE(reward_minor, 0)), 0)`.as('spend'),
    ])
    .where('merchant_id', '=', merchantId)
    .where((eb) => eb.or([eb('consumer_token', '=', tokenId), eb('gift_card_id', '=', tokenId)]))
    .where('granted_at', 'is not', null)
    .executeTakeFirstOrThrow();
  return { purchases: Number(r.purchases), visits: Number(r.visits), lifetimeSpendMinor: Number(r.spend) };
}

export interface ProfileView {
  profileId: number;
  fullName: string | null;
  email: string | null;
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
    .select(['p.id', 'p.full_name', 'p.email', 'p.account_id', 'a.balance_minor', 'a.currency'])
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
