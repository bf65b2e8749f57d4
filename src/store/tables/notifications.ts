import type { Generated } from 'kysely';
import type { Timestamp } from './columns.js';

/** The consumer's switches for purchase notifications (no row: both on). */
export interface ConsumerPreferencesTable {
  merchant_id: number;
  profile_id: number;
  mail_enabled: boolean;
  push_enabled: boolean;
  updated_at: Timestamp;
}

/** A browser the consumer subscribed to Web Push in the portal. */
export interface PushSubscriptionsTable {
  id: Generated<number>;
  merchant_id: number;
  profile_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: Timestamp;
}

/** A one-time sign-in link of the consumer portal (the token only as its SHA-256). */
export interface ConsumerSignInsTable {
  token_sha256: string;
  merchant_id: number;
  profile_id: number;
  expires_at: Timestamp;
  spent_at: Timestamp | null;
  created_at: Timestamp;
}

/** A signed-in browser of the consumer portal (the cookie's value only as its SHA-256). */
export interface ConsumerSessionsTable {
  id_sha256: string;
  merchant_id: number;
  profile_id: number;
  csrf_token: string;
  expires_at: Timestamp;
  created_at: Timestamp;
}
