import type { Migration } from './migration.js';

/**
 * A portal user who forgot the password asks for a link by e-mail (docs/decisions.md, "A forgotten
 * password"): only the SHA-256 of the link's token is kept, with its expiry and its use; the
 * user's links are counted by time for the quota.
 */
export const portalPasswordResets: Migration = {
  name: '0056-portal-password-resets',
  statements: [
    `CREATE TABLE portal_password_resets (
       token_sha256 text PRIMARY KEY,
       user_id bigint NOT NULL REFERENCES portal_users(id),
       created_at timestamptz NOT NULL,
       expires_at timestamptz NOT NULL,
       used_at timestamptz)`,
    `CREATE INDEX portal_password_resets_user ON portal_password_resets (user_id, created_at)`,
  ],
};
