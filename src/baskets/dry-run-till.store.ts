import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

/** What the dry run reads to stand for a till: a terminal's placement, an outlet's sortiment. */

/** The outlet and sortiment of a terminal of the merchant; null when the merchant has no such terminal. */
export async function terminalPlacement(
  db: Kysely<DB>,
  merchantId: number,
  unitId: string,
): Promise<{ outletId: number; sortimentId: number | null } | null> {
  const unit = await db
    .selectFrom('tracking_units')
    .select(['outlet_id', 'sortiment_id'])
    .where('id', '=', unitId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  return unit === undefined ? null : { outletId: unit.outlet_id, sortimentId: unit.sortiment_id };
}

/** The sortiment of the outlet's terminal changed last that has one; null when none has. */
export async function outletSortiment(
  db: Kysely<DB>,
  merchantId: number,
  outletId: number,
): Promise<number | null> {
  const unit = await db
    .selectFrom('tracking_units')
    .select('sortiment_id')
    .where('merchant_id', '=', merchantId)
    .where('outlet_id', '=', outletId)
    .where('sortiment_id', 'is not', null)
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .executeTakeFirst();
  return unit?.sortiment_id ?? null;
}

/** The merchant's sortiment when it has exactly one; else null. */
export async function onlySortiment(db: Kysely<DB>, merchantId: number): Promise<number | null> {
  const rows = await db
    .selectFrom('sortiments')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .limit(2)
    .execute();
  return rows.length === 1 ? (rows[0]?.id ?? null) : null;
}
