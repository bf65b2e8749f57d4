import type { Generated } from 'kysely';
import type { CreatedAt, Timestamp } from './columns.js';

/** Row types of consumer profiles, their tags and one-time passwords, and cards. */

export type CardState = 'registered' | 'locked' | 'released';

export interface ProfilesTable {
  merchant_id: number;
  id: Generated<number>;
  full_name: string | null;
  email: string | null;
  language: string | null;
  partner_user_id: string | null;
  account_id: number;
  is_top_up_allowed: boolean;
  is_charge_allowed: boolean;
  max_amount_minor: number | null;
  max_single_top_up_minor: number | null;
  min_single_top_up_minor: number | null;
  max_monthly_top_up_minor: number | null;
  created_at: CreatedAt;
  /** The portal user who enrolled the customer; null for profiles made through the APIs. */
  created_by_portal_user_id: number | null;
  /** The enrolment request's own id (unique in the merchant): the form sent twice answers the first. */
  portal_request_id: string | null;
  /** A SHA-256 of what the enrolment request asked: its repeats are compared with it (migration 0065). */
  portal_request_fingerprint: string | null;
}

export interface TagsTable {
  merchant_id: number;
  id: Generated<number>;
  name: string;
}

export interface ProfileTagsTable {
  merchant_id: number;
  profile_id: number;
  tag_id: number;
}

export interface ProfileOtpsTable {
  merchant_id: number;
  otp_sha256: string;
  profile_id: number;
  expires_at: Timestamp;
  spent_at: Timestamp | null;
  created_at: Timestamp;
}

export interface CardsTable {
  merchant_id: number;
  id: Generated<number>;
  token_id: string;
  token_type: number;
  state: CardState;
  expires_at: Timestamp | null;
  profile_id: number | null;
  /** The card's own account (gift cards, unlinked customer cards). */
  account_id: number;
  registered_at: Timestamp;
  updated_at: Timestamp;
}
