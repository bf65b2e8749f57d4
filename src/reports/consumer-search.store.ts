import { type Kysely, sql } from 'kysely';
import type { PageRequest } from '../shared/paging.js';
import { accentInsensitivePattern } from '../store/like-pattern.js';
import type { DB } from '../store/schema.js';

export interface ConsumerListing {
  profileId: number;
  fullName: string | null;
  email: string | null;
  balanceMinor: number;
  currency: string;
  cards: string[];
}

/**
 * A merchant's consumer profiles whose name or e-mail holds the text (case-insensitive, accented
 * letters read as plain ones: "muller" finds Müller), or all of them without a text, with
 * their balance and cards, by id, a page at a time (docs/decisions.md, "Paging": the key is the id).
 */
export async function searchConsumers(
  db: Kysely<DB>,
  merchantId: number,
  text: string | null,
  page: PageRequest,
): Promise<ConsumerListing[]> {
  const pattern = text === null ? null : accentInsensitivePattern(text);
  let q = db
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
    .orderBy('p.id')
    .limit(page.limit + 1);
  if (page.after) q = q.where('p.id', '>', Number(page.after[0]));
  const rows = await q.execute();
  return rows.map((r) => ({
    profileId: r.id,
    fullName: r.full_name,
    email: r.email,
    balanceMinor: Number(r.balance_minor),
    currency: r.currency.trim(),
    cards: r.cards ?? [],
  }));
}
