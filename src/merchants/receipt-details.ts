import { AppError } from '../shared/errors.js';
import type { Deps } from '../store/deps.js';
import { type ReceiptDetails, receiptDetailsRow, updateReceiptDetails } from './merchant.store.js';

export type { ReceiptDetails } from './merchant.store.js';

/**
 * What a receipt says of the merchant who issued it: legal name, address, VAT identification
 * number (docs/decisions.md, "Receipts a shop can hand out"). The operator API and the merchant
 * portal (owners) set them; the wire checks each field's form, this the rest.
 */

/** An address prints on at most this many lines. */
export const ADDRESS_LINES = 6;

export async function receiptDetailsOf({ db }: Deps, merchantId: number): Promise<ReceiptDetails> {
  const details = await receiptDetailsRow(db, merchantId);
  if (!details) throw new AppError('notFound', 'No such merchant.');
  return details;
}

/**
 * Replaces the merchant's receipt details: a field left out is not set afterwards. Spaces around a
 * value (and around each line of the address) are dropped; empty lines of an address too. The VAT
 * id is stored as the EU writes it: without the spaces, dots and hyphens it may be printed with, its
 * letters capitals.
 */
export async function setReceiptDetails(
  { db }: Deps,
  merchantId: number,
  change: { legalName?: string; address?: string; taxNumber?: string },
): Promise<ReceiptDetails> {
  const lines = (change.address ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length > ADDRESS_LINES) {
    throw new AppError(
      'refused',
      `The address has ${lines.length} lines; a receipt prints at most ${ADDRESS_LINES}.`,
      { details: { field: 'address' } },
    );
  }
  const details = await updateReceiptDetails(db, merchantId, {
    legalName: change.legalName?.trim() || null,
    address: lines.length > 0 ? lines.join('\n') : null,
    taxNumber: change.taxNumber === undefined ? null : compactTaxNumber(change.taxNumber),
  });
  if (!details) throw new AppError('notFound', 'No such merchant.');
  return details;
}

/** `de 123.456-789` -> `DE123456789` (the wire let through only separators besides the characters). */
export function compactTaxNumber(typed: string): string {
  return typed.replace(/[ .-]/g, '').toUpperCase();
}
