import type { Migration } from './migration.js';

/**
 * An owner invites a colleague by e-mail (docs/decisions.md, "The team: colleagues and
 * passwords"): the colleague chooses their own first password with a link, kept as the links that
 * set a forgotten password are, marked `invitation` and valid for longer.
 */
export const portalInvitations: Migration = {
  name: '0057-portal-invitations',
  statements: [
    `ALTER TABLE portal_password_resets ADD COLUMN purpose text NOT NULL DEFAULT 'reset'
       CHECK (purpose IN ('reset', 'invitation'))`,
  ],
};
