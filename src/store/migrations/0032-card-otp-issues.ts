import type { Migration } from './migration.js';

/**
 * One-time passwords issued in the merchant portal, recorded (docs/decisions.md, "Gift-card
 * privacy and hardened pages", one-time passwords): which card's consumer, which portal user
 * issued it, when, and until when it was valid. Never the password itself (only its SHA-256 is
 * kept, in `profile_otps`, and only while it is live). Rows are never changed or deleted.
 */
export const cardOtpIssues: Migration = {
  name: '0032-card-otp-issues',
  statements: [
    `CREATE TABLE card_otp_issues (
       id bigserial PRIMARY KEY,
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       card_id bigint NOT NULL REFERENCES cards(id),
       profile_id bigint NOT NULL REFERENCES profiles(id),
       portal_user_id bigint NOT NULL REFERENCES portal_users(id),
       issued_at timestamptz NOT NULL,
       expires_at timestamptz NOT NULL
     )`,
    `CREATE INDEX card_otp_issues_card ON card_otp_issues (card_id, id DESC)`,
  ],
};
