import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import type { StoredOrder } from '../orders/order.store.js';

/**
 * One checkout order's pricing as it was stored when the order was placed (the order's answer
 * head and priced positions), for the portal's page of the order (docs/decisions.md, "One checkout
 * order in the portal"); a foreign order is not found.
 */
export async function storedOrderOf(
  db: Kysely<DB>,
  merchantId: number,
  orderId: string,
): Promise<StoredOrder | null> {
  const row = await db
    .selectFrom('checkout_orders')
    .select('priced')
    .where('merchant_id', '=', merchantId)
    .where('id', '=', orderId)
    .executeTakeFirst();
  return row?.priced ?? null;
}

/** The e-mail of each of the merchant's portal users named, by id (a refund's author). */
export async function portalUserEmails(
  db: Kysely<DB>,
  merchantId: number,
  ids: readonly number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('portal_users')
    .select(['id', 'email'])
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [Number(r.id), r.email]));
}
