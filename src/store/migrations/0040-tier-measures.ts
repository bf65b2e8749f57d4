import type { Migration } from './migration.js';

/**
 * Status tiers (docs/decisions.md, "Status tiers"): a consumer's points measure is the sum of
 * their 'earn' and 'return_earned' movements of one scheme since the period's start
 * (`tier_measures`), read by holder, scheme and time from these partial indexes; merchants without
 * tiers never read them. Spend is read through baskets_profile_granted (migration 0013).
 */
export const tierMeasures: Migration = {
  name: '0040-tier-measures',
  statements: [
    `CREATE INDEX points_movements_tier_profile ON points_movements (profile_id, scheme_id, created_at)
       INCLUDE (points) WHERE profile_id IS NOT NULL AND kind IN ('earn', 'return_earned')`,
    `CREATE INDEX points_movements_tier_card ON points_movements (card_id, scheme_id, created_at)
       INCLUDE (points) WHERE card_id IS NOT NULL AND kind IN ('earn', 'return_earned')`,
  ],
};
