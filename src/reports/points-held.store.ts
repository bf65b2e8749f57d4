import { type Expression, type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * The points a customer holds at `now`, in every scheme together: the lots on their profile and on
 * the cards they hold (a released card's are gone with it), used up and expired lots left out. One
 * rule for the customer's page and the customers' CSV (docs/decisions.md, "All customers, page by
 * page"). Two lookups by index (the profile's lots, its cards' lots) rather than one with an OR,
 * which PostgreSQL answers by reading every lot of the merchant for each customer.
 */
export function pointsHeldSql(profileId: Expression<number>, now: Date): RawBuilder<string> {
  return sql<string>`(SELECT COALESCE(SUM(l.remaining), 0) FROM points_lots l
      WHERE l.profile_id = ${profileId} AND l.remaining > 0 AND (l.expires_at IS NULL OR l.expires_at > ${now}))
    + (SELECT COALESCE(SUM(l.remaining), 0) FROM cards c
         JOIN points_lots l ON l.card_id = c.id AND l.remaining > 0
          AND (l.expires_at IS NULL OR l.expires_at > ${now}) AND l.profile_id IS DISTINCT FROM ${profileId}
        WHERE c.profile_id = ${profileId} AND c.state <> 'released')`;
}

/** The points one of the merchant's customers holds at `nowMs` (`pointsHeldSql`); 0 for no such customer. */
export async function pointsHeld(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  nowMs: number,
): Promise<number> {
  const row = await db
    .selectFrom('profiles as p')
    .select(pointsHeldSql(sql.ref<number>('p.id'), new Date(nowMs)).as('points'))
    .where('p.merchant_id', '=', merchantId)
    .where('p.id', '=', profileId)
    .executeTakeFirst();
  return row ? Number(row.points) : 0;
}
