import type { Migration } from './migration.js';

/**
 * The baskets of a customer card that no profile was identified for: those it made before it was
 * linked, which `/me` lists and a spend tier counts for the profile it was linked to since
 * (docs/decisions.md, "Purchases, receipts and the purchase mail", "Status tiers"). Without it both
 * read every basket the card ever made to find the few from before the link.
 */
export const unlinkedCardBaskets: Migration = {
  name: '0054-unlinked-card-baskets',
  statements: [
    `CREATE INDEX baskets_unlinked_card ON baskets (merchant_id, consumer_token, timestamp_utc)
       WHERE profile_id IS NULL AND consumer_token IS NOT NULL`,
  ],
};
