import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

/** A basket a till sent, as the dry run starts from it: its till and its body as sent. */
export interface RecentBasket {
  trackingUnitId: string;
  instanceName: string;
  basketId: string;
  uploadedAt: string;
  body: Record<string, unknown>;
}

/** The merchant's latest baskets by their time, newest first (the body without its PDF, as stored). */
export async function recentBaskets(
  db: Kysely<DB>,
  merchantId: number,
  limit: number,
): Promise<RecentBasket[]> {
  const rows = await db
    .selectFrom('baskets as b')
    .innerJoin('tracking_units as tu', 'tu.id', 'b.tracking_unit_id')
    .select(['b.tracking_unit_id', 'tu.instance_name', 'b.basket_id', 'b.uploaded_at', 'b.body'])
    .where('b.merchant_id', '=', merchantId)
    .orderBy('b.timestamp_utc', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    trackingUnitId: r.tracking_unit_id,
    instanceName: r.instance_name,
    basketId: r.basket_id,
    uploadedAt: r.uploaded_at.toISOString(),
    body: (typeof r.body === 'string' ? JSON.parse(r.body) : r.body) as Record<string, unknown>,
  }));
}
