import type { Migration } from './migration.js';

/**
 * Sign-in links of the consumer portal are limited per profile and time (docs/decisions.md,
 * "Notifications, receipts and the consumer portal"): the links a profile was sent lately are
 * counted by profile and time, and spent or expired links are deleted as new ones are made.
 */
export const signInLimit: Migration = {
  name: '0018-sign-in-limit',
  statements: [`CREATE INDEX consumer_sign_ins_profile ON consumer_sign_ins (profile_id, created_at)`],
};
