import type { Migration } from './migration.js';

/**
 * The merchant's team in the portal (docs/decisions.md, "The team: colleagues and passwords").
 *
 * - A colleague an owner removes keeps their row, marked `removed_at` and `removed_by`: the
 *   balance corrections, card locks and one-time passwords they made still name them. Their
 *   sessions are deleted with the removal.
 * - The e-mail is unique among the users not removed only, so that a removed colleague's address
 *   can be invited again, here or by another merchant.
 * - `last_signed_in_at`: the team list shows who still uses the portal.
 */
export const portalTeam: Migration = {
  name: '0055-portal-team',
  statements: [
    `ALTER TABLE portal_users ADD COLUMN removed_at timestamptz`,
    `ALTER TABLE portal_users ADD COLUMN removed_by bigint REFERENCES portal_users(id)`,
    `ALTER TABLE portal_users ADD COLUMN last_signed_in_at timestamptz`,
    `ALTER TABLE portal_users DROP CONSTRAINT portal_users_email_key`,
    `CREATE UNIQUE INDEX portal_users_email ON portal_users (email) WHERE removed_at IS NULL`,
  ],
};
