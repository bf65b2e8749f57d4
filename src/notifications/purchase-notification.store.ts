import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import type { PurchaseNotification } from './purchase-notification.js';

/**
 * Queues a purchase notification in the caller's transaction, due at `nowMs`: the one writer of
 * the message, `queue_purchase_notification` (src/notifications/sql/), which the grant and the
 * order call in their statements.
 */
export async function queueNotification(
  trx: Kysely<DB>,
  merchantId: number,
  payload: PurchaseNotification,
  nowMs: number,
): Promise<void> {
  await sql`SELECT queue_purchase_notification(${merchantId}, ${payload.receiptId}, ${payload.profileId},
    ${payload.event}, ${new Date(nowMs)})`.execute(trx);
}
