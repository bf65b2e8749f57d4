import type { Migration } from './migration.js';

/**
 * An owner corrects a customer's e-mail address in the portal, so that receipts the customer's mail
 * server refused reach them (docs/decisions.md, "A customer's e-mail address corrected"): who
 * changed it, when, from what to what, kept and shown on the customer's page.
 */
export const profileEmailChanges: Migration = {
  name: '0060-profile-email-changes',
  statements: [
    `CREATE TABLE profile_email_changes (
       id bigserial PRIMARY KEY,
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       profile_id bigint NOT NULL REFERENCES profiles(id),
       portal_user_id bigint NOT NULL REFERENCES portal_users(id),
       old_email text,
       new_email text,
       at timestamptz NOT NULL)`,
    `CREATE INDEX profile_email_changes_profile ON profile_email_changes (profile_id, id)`,
  ],
};
