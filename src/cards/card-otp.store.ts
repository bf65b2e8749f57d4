import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

/** Who issued a one-time password for a card's consumer, and when (migration 0032). */
export async function recordOtpIssue(
  db: Kysely<DB>,
  issue: {
    merchantId: number;
    cardId: number;
    profileId: number;
    portalUserId: number;
    issuedAtMs: number;
    expiresAtMs: number;
  },
): Promise<void> {
  await db
    .insertInto('card_otp_issues')
    .values({
      merchant_id: issue.merchantId,
      card_id: issue.cardId,
      profile_id: issue.profileId,
      portal_user_id: issue.portalUserId,
      issued_at: new Date(issue.issuedAtMs),
      expires_at: new Date(issue.expiresAtMs),
    })
    .execute();
}
