import type { Kysely } from 'kysely';
import { type TierStatus, tierStatuses } from '../loyalty/tiers.store.js';
import type { StatementPage } from '../ledger/statement.store.js';
import type { DB } from '../store/schema.js';
import { type Movement, movementsOf } from './consumer-movements.store.js';

/**
 * What the consumer portal shows of a signed-in profile: points per scheme with the next expiry,
 * the balance and a page of its movements (each named by what it was for, with the balance after
 * it), and the customer cards. The purchases are read by consumer-purchases.store.ts. Gift cards
 * are never read here: their activity is not shown to anyone (POS interface: a gift card has "no
 * public consumer-portal access to its activity").
 */
export interface AccountOverview {
  readonly merchantId: number;
  readonly fullName: string | null;
  readonly email: string | null;
  readonly language: string | null;
  readonly merchantName: string;
  /** The merchant's time zone: the calendar on which the page dates movements and expiries. */
  readonly timeZone: string;
  readonly currency: string;
  readonly balanceMinor: number;
  readonly points: { schemeName: string; points: number; nextExpiry: Date | null; expiringPoints: number }[];
  readonly movements: Movement[];
  readonly cards: { tokenId: string; state: string }[];
  /** Status tiers: where the profile stands in each scheme that has them (docs/decisions.md, "Status tiers"). */
  readonly tiers: TierStatus[];
}

/**
 * The overview with a page of the balance's statement: `movements` gives it for the merchant's
 * time zone (a cut at a day of its calendar).
 */
export async function accountOverview(
  db: Kysely<DB>,
  profileId: number,
  nowMs: number,
  movements: (timeZone: string) => StatementPage,
): Promise<AccountOverview | undefined> {
  const profile = await db
    .selectFrom('profiles as p')
    .innerJoin('merchants as m', 'm.id', 'p.merchant_id')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .select([
      'p.merchant_id',
      'p.full_name',
      'p.email',
      'p.language',
      'm.display_name',
      'm.time_zone',
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
  const cards = await db
    .selectFrom('cards')
    .select(['token_id', 'state'])
    .where('profile_id', '=', profileId)
    .where('token_type', '=', 0)
    .orderBy('id')
    .execute();
  return {
    merchantId: profile.merchant_id,
    fullName: profile.full_name,
    email: profile.email,
    language: profile.language,
    merchantName: profile.display_name,
    timeZone: profile.time_zone,
    currency: profile.currency,
    balanceMinor: Number(profile.balance_minor),
    points: [...byScheme.values()],
    tiers: await tierStatuses(db, profile.merchant_id, { profileId }, nowMs),
    movements: await movementsOf(
      db,
      profile.merchant_id,
      { id: profileId, accountId: profile.account_id },
      movements(profile.time_zone),
    ),
    cards: cards.map((c) => ({ tokenId: c.token_id, state: c.state })),
  };
}
