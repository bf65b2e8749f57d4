import type { Migration } from './migration.js';

/**
 * A card's answer in the portal carries the newest 100 bookings made with the card
 * (docs/decisions.md, "A card's whole history"), read by the card's token: found by this index,
 * where they were found by walking every transfer of the merchant from the newest (490 ms for a
 * card at a million transfers, 6 ms with it). A transfer booked with a card adds one index entry.
 */
export const ledgerTransfersToken: Migration = {
  name: '0069-ledger-transfers-token',
  statements: [
    `CREATE INDEX ledger_transfers_token ON ledger_transfers (token_id, id) WHERE token_id IS NOT NULL`,
  ],
};
