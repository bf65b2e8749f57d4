import type { Migration } from './migration.js';

/**
 * What a receipt says of the merchant who issued it (docs/decisions.md, "Receipts a shop can hand
 * out"): the legal name, the address and the VAT identification number. Each may be absent; the
 * receipt then shows the merchant's name only.
 */
export const merchantReceiptDetails: Migration = {
  name: '0034-merchant-receipt-details',
  statements: [
    `ALTER TABLE merchants ADD COLUMN legal_name text`,
    `ALTER TABLE merchants ADD COLUMN legal_address text`,
    `ALTER TABLE merchants ADD COLUMN tax_number text`,
  ],
};
