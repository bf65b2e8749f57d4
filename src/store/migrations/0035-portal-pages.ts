import type { Migration } from './migration.js';

/**
 * The portal's pages over a year of baskets (docs/performance.md, "The portal's pages over a year
 * of trade"): the terminal list, which the basket search and the campaign page read too, shows
 * each terminal's newest upload, found by terminal and upload time instead of over all the
 * merchant's baskets.
 */
export const portalPages: Migration = {
  name: '0035-portal-pages',
  statements: [`CREATE INDEX baskets_unit_uploaded ON baskets (tracking_unit_id, uploaded_at)`],
};
