import { type Kysely, sql } from 'kysely';
import type { PageRequest } from '../shared/paging.js';
import { accentInsensitivePattern } from '../store/like-pattern.js';
import type { DB } from '../store/schema.js';
import { pointsHeldSql } from './points-held.store.js';

export interface ConsumerListing {
  profileId: number;
  fullName: string | null;
  email: string | null;
  balanceMinor: number;
  currency: string;
  cards: string[];
}

/** A customer as the customer list's CSV holds it: the listing, their language, points and since when. */
export interface ConsumerExport extends ConsumerListing {
  language: string | null;
  /** Points held in every scheme together, expired ones left out. */
  points: number;
  createdAt: Date;
}

/**
 * The query of a merchant's consumer profiles whose name or e-mail holds the text (case-insensitive,
 * accented letters read as plain ones: "muller" finds Müller), or all of them without a text, with
 * their balance and cards, by id, a page at a time (docs/decisions.md, "Paging": the key is the id).
 */
function consumerQuery(
  db: Kysely<DB>,
  merchantId: number,
  text: string | null,
  page: PageRequest,
  order: ConsumerOrder = 'id',
) {
  const pattern = text === null ? null : accentInsensitivePattern(text);
  const after = page.after;
  return db
    .selectFrom('profiles as p')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .select(['p.id', 'p.full_name', 'p.email', 'a.balance_minor', 'a.currency'])
    .select((eb) =>
      eb
        .selectFrom('cards as c')
        .whereRef('c.profile_id', '=', 'p.id')
        .where('c.state', '<>', 'released')
        .select(sql<string[]>`COALESCE(array_agg(c.token_id ORDER BY c.id), '{}')`.as('cards'))
        .as('cards'),
    )
    .where('p.merchant_id', '=', merchantId)
    .$if(pattern !== null, (x) =>
      x.where((eb) => eb.or([sql<boolean>`p.full_name ~* ${pattern}`, sql<boolean>`p.email ~* ${pattern}`])),
    )
    .$if(after !== null && order === 'id', (x) => x.where('p.id', '>', Number(after?.[0])))
    .$if(after !== null && order === 'balance', (x) =>
      x.where((eb) =>
        eb.or([
          eb('a.balance_minor', '<', Number(after?.[0])),
          eb.and([eb('a.balance_minor', '=', Number(after?.[0])), eb('p.id', '>', Number(after?.[1]))]),
        ]),
      ),
    )
    .$if(order === 'balance', (x) => x.orderBy('a.balance_minor', 'desc'))
    .orderBy('p.id')
    .limit(page.limit + 1);
}

function listingOf(r: {
  id: number;
  full_name: string | null;
  email: string | null;
  balance_minor: string | number | bigint;
  currency: string;
  cards: string[] | null;
}): ConsumerListing {
  return {
    profileId: r.id,
    fullName: r.full_name,
    email: r.email,
    balanceMinor: Number(r.balance_minor),
    currency: r.currency.trim(),
    cards: r.cards ?? [],
  };
}

/**
 * The order of the customer list: by id (oldest first), or by balance, highest first, ties by id
 * (docs/decisions.md, "All customers, page by page"; the key of a page's last row: its balance and
 * id).
 */
export type ConsumerOrder = 'id' | 'balance';

/** The consumers found (all without a text) in the order asked, a page at a time: the page's rows and one more when more follow. */
export async function searchConsumers(
  db: Kysely<DB>,
  merchantId: number,
  text: string | null,
  page: PageRequest,
  order: ConsumerOrder = 'id',
): Promise<ConsumerListing[]> {
  const rows = await consumerQuery(db, merchantId, text, page, order).execute();
  return rows.map(listingOf);
}

/**
 * The consumers found as `searchConsumers` finds them, with what the customer list's CSV adds
 * (docs/decisions.md, "All customers, page by page"): their language, when they were made, and the
 * points they hold at `nowMs` (`pointsHeldSql`, the customer's page's rule).
 */
export async function consumersForExport(
  db: Kysely<DB>,
  merchantId: number,
  text: string | null,
  nowMs: number,
  page: PageRequest,
): Promise<ConsumerExport[]> {
  const now = new Date(nowMs);
  const rows = await consumerQuery(db, merchantId, text, page)
    .select(['p.language', 'p.created_at'])
    .select(pointsHeldSql(sql.ref<number>('p.id'), now).as('points'))
    .execute();
  return rows.map((r) => ({
    ...listingOf(r),
    language: r.language,
    points: Number(r.points),
    createdAt: new Date(r.created_at),
  }));
}
