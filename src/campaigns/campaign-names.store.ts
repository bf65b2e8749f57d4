import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * The names of the merchant's campaigns among `ids`, by id: what the reports show beside a
 * campaign they found by its id (the dashboard's top campaigns, a basket's offered campaigns, the
 * campaigns an order was given). A campaign of another merchant, or none, is not in the answer.
 */
export async function campaignNames(
  db: Kysely<DB>,
  merchantId: number,
  ids: readonly number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('campaigns')
    .select(['id', 'name'])
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [Number(r.id), r.name]));
}
