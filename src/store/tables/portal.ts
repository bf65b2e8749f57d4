import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './columns.js';

/** A person who signs in to one merchant's portal (migration 0014). */
export interface PortalUsersTable {
  id: Generated<number>;
  merchant_id: number;
  /** Lower-cased; unique across merchants among the users not removed. */
  email: string;
  /** `scrypt$N$r$p$salt$hash` (base64url). */
  password_hash: string;
  role: 'owner' | 'staff';
  lang: 'de' | 'en' | null;
  failed_sign_ins: Generated<number>;
  locked_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  /** When an owner removed the user (migration 0055); the row stays for the history that names it. */
  removed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  removed_by: ColumnType<number | null, number | null | undefined, number | null>;
  last_signed_in_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** A signed-in browser: only the SHA-256 of its cookie's token is stored. */
export interface PortalSessionsTable {
  token_sha256: string;
  user_id: number;
  merchant_id: number;
  csrf_token: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** A link to set a forgotten password (migration 0056): only its token's hash. */
export interface PortalPasswordResetsTable {
  token_sha256: string;
  user_id: number;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** reset: asked for a forgotten password; invitation: an owner's, to choose the first one. */
  purpose: ColumnType<'reset' | 'invitation', 'reset' | 'invitation' | undefined, never>;
}

/** The reason a portal user gave for a balance correction (the posting is on the ledger). */
export interface PortalCorrectionsTable {
  transaction_id: string;
  merchant_id: number;
  user_id: number;
  token_id: string;
  reason: string;
  created_at: Timestamp;
}

/** A customer's e-mail address corrected by a portal user (migration 0060). */
export interface ProfileEmailChangesTable {
  id: Generated<number>;
  merchant_id: number;
  profile_id: number;
  portal_user_id: number;
  old_email: string | null;
  new_email: string | null;
  at: Timestamp;
}

/** A card was locked or unlocked (migration 0023): by a portal user, or by a till (POS). */
export interface CardLockEventsTable {
  id: Generated<number>;
  merchant_id: number;
  card_id: number;
  action: 'lock' | 'unlock';
  /** The portal user who did it; null when a till locked it. */
  portal_user_id: number | null;
  /** The till (trackingUnit) that locked it through the POS interface; null when a portal user did. */
  tracking_unit_id: string | null;
  reason: string | null;
  at: Timestamp;
}

/** A one-time password a portal user issued for the consumer of a card (migration 0032); never the password. */
export interface CardOtpIssuesTable {
  id: Generated<number>;
  merchant_id: number;
  card_id: number;
  profile_id: number;
  portal_user_id: number;
  issued_at: Timestamp;
  expires_at: Timestamp;
}
