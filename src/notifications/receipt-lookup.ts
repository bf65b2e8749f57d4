import { findReceipt } from '../receipts/receipt.store.js';
import type { ReceiptSource, ReceiptView } from '../receipts/receipt-view.js';
import type { Deps } from '../store/deps.js';
import type { ReceiptKind } from '../store/tables/outbox.js';

/** A receipt id (at least 128 random bits, base64url): anything else is unknown without a query. */
export const RECEIPT_ID = /^[A-Za-z0-9_-]{22,64}$/;

export type ReceiptSources = ReadonlyMap<ReceiptKind, ReceiptSource>;

/** What the receipt pages' use cases work with: the deps and where each kind of receipt comes from. */
export interface ReceiptDeps extends Deps {
  readonly sources: ReceiptSources;
}

/** The receipt's view by its public id; undefined when there is none. */
export async function loadReceipt(
  { db, sources }: ReceiptDeps,
  id: string,
): Promise<ReceiptView | undefined> {
  if (!RECEIPT_ID.test(id)) return undefined;
  const row = await findReceipt(db, id);
  if (!row) return undefined;
  return sources.get(row.kind)?.load(db, row.merchantId, row.sourceRef);
}

/** The bill PDF of the receipt, when its source has one. */
export async function loadReceiptPdf({ db, sources }: ReceiptDeps, id: string): Promise<Buffer | null> {
  if (!RECEIPT_ID.test(id)) return null;
  const row = await findReceipt(db, id);
  if (!row) return null;
  const source = sources.get(row.kind);
  return source?.billPdf ? source.billPdf(db, row.merchantId, row.sourceRef) : null;
}
