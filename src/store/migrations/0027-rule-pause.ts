import type { Migration } from './migration.js';

/**
 * Campaigns and loyalty schemes can be paused (docs/decisions.md, "Campaign and loyalty-scheme
 * forms", campaign states): while `paused_at` is set the rule gives nothing at the till, and
 * resuming clears it. Ending stays `ended_at`, for good.
 */
export const rulePause: Migration = {
  name: '0027-rule-pause',
  statements: [
    `ALTER TABLE campaigns ADD COLUMN paused_at timestamptz`,
    `ALTER TABLE loyalty_schemes ADD COLUMN paused_at timestamptz`,
  ],
};
