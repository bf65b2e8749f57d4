import type { Migration } from './migration.js';

/**
 * A card's or a customer's points history (docs/decisions.md, "A card's whole history") reads the
 * movements of its owners by their ids, newest first: found by these indexes, a page costs what
 * the owner's own movements cost, where it read every movement of the merchant before (128 ms
 * at a million of them, 2 ms with the index). Each movement has one owner, a card or a profile,
 * so each adds one index entry.
 */
export const pointsMovementsOwner: Migration = {
  name: '0068-points-movements-owner',
  statements: [
    `CREATE INDEX points_movements_card ON points_movements (card_id, id) WHERE card_id IS NOT NULL`,
    `CREATE INDEX points_movements_profile ON points_movements (profile_id, id) WHERE profile_id IS NOT NULL`,
  ],
};
