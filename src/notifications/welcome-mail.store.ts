import { type Kysely, sql } from 'kysely';
import { WELCOME_MAIL } from '../cards/enrolment.service.js';
import type { DB } from '../store/schema.js';
import { type ReceiptNotificationState, latestMail, mailStateOf } from './purchase-notification.store.js';

/**
 * What became of the customer's latest welcome mail (docs/decisions.md, "The welcome mail sent
 * again"), worded as a receipt's mail is; null when none was queued. Found by the merchant and the
 * profile's id (migration 0066).
 */
export async function welcomeMailState(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
): Promise<ReceiptNotificationState | null> {
  const { rows } = await latestMail(
    sql<boolean>`m.merchant_id = ${merchantId} AND m.topic = ${WELCOME_MAIL}
      AND m.payload->>'profileId' = ${String(profileId)}`,
  ).execute(db);
  return mailStateOf(rows[0]);
}
