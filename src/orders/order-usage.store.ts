import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { OrderUsage } from './order-pricing.js';

/**
 * An online order's uses of campaigns with a usage limit per customer (docs/decisions.md, "Usage
 * limits and status tiers on online orders"): written with the order, under its customer's lock,
 * and read back by `consumer_state` beside the tills' usages.
 */
export async function bookOrderUsages(
  trx: Transaction<DB>,
  ref: { merchantId: number; orderId: string; profileId: number },
  usages: readonly OrderUsage[],
  nowMs: number,
): Promise<void> {
  if (usages.length === 0) return;
  await trx
    .insertInto('order_campaign_usages')
    .values(
      usages.map((u) => ({
        merchant_id: ref.merchantId,
        order_id: ref.orderId,
        campaign_id: u.campaignId,
        profile_id: ref.profileId,
        used: u.uses,
        created_at: new Date(nowMs),
      })),
    )
    .execute();
}

/** An order refunded in whole releases its uses: the customer may be given them again. */
export async function releaseOrderUsages(
  trx: Transaction<DB>,
  ref: { merchantId: number; orderId: string },
  nowMs: number,
): Promise<void> {
  await trx
    .updateTable('order_campaign_usages')
    .set((eb) => ({ released: eb.ref('used'), released_at: new Date(nowMs) }))
    .where('merchant_id', '=', ref.merchantId)
    .where('order_id', '=', ref.orderId)
    .where('released_at', 'is', null)
    .execute();
}
