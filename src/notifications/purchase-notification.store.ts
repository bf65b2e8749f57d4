import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { PURCHASE_NOTIFICATION, type PurchaseNotification } from './purchase-notification.js';

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

/** What an attempt of a consumer's message did with its mail (src/notifications/mail-and-push.ts). */
export const MAIL_OUTCOMES = ['sent', 'failed', 'refused', 'no_address', 'switched_off'] as const;
export type MailOutcome = (typeof MAIL_OUTCOMES)[number];

/** What became of the notification of a receipt's purchase (its grant or its order). */
export interface ReceiptNotificationState {
  readonly status: 'pending' | 'delivered' | 'dead';
  readonly attempts: number;
  /** What the last attempt did with the mail: sent, failed, refused, no_address, switched_off. */
  readonly mail: MailOutcome | null;
  readonly lastError: string | null;
  readonly deliveredAt: Date | null;
  readonly nextAttemptAt: Date | null;
}

/**
 * The purchase notification of a receipt (docs/decisions.md, "What became of the receipt mail"):
 * the latest one of its grant or order, with what its last attempt did with the mail; null when
 * none was written (no profile, a gift card, a profile with neither an e-mail address nor push).
 */
export async function receiptNotificationState(
  db: Kysely<DB>,
  merchantId: number,
  receiptId: string,
): Promise<ReceiptNotificationState | null> {
  const row = await db
    .selectFrom('outbox_messages as m')
    .select([
      'm.status',
      'm.attempts',
      'm.last_error',
      'm.delivered_at',
      'm.next_attempt_at',
      sql<string | null>`(SELECT a.detail->>'mail' FROM outbox_attempts a
         WHERE a.message_id = m.id ORDER BY a.attempt DESC LIMIT 1)`.as('mail'),
    ])
    .where('m.merchant_id', '=', merchantId)
    .where('m.topic', '=', PURCHASE_NOTIFICATION)
    .where(sql<boolean>`m.payload->>'receiptId' = ${receiptId}`)
    .where(sql<boolean>`m.payload->>'event' IN ('grant', 'order')`)
    .orderBy('m.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  return {
    status: row.status as ReceiptNotificationState['status'],
    attempts: row.attempts,
    mail: MAIL_OUTCOMES.find((o) => o === row.mail) ?? null,
    lastError: row.last_error,
    deliveredAt: row.delivered_at,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
  };
}
