import { type Kysely, type RawBuilder, sql } from 'kysely';
import { randomBase64Url, timeHex } from '../shared/random-id.js';
import type { DB } from '../store/schema.js';
import type { ReceiptKind } from '../store/tables/outbox.js';

/**
 * Receipts' public ids (docs/decisions.md "Receipts"): each granted basket and each checkout order
 * gets one random id, the only key its digital receipt page is found by.
 */

export interface ReceiptRef {
  readonly id: string;
  readonly merchantId: number;
  readonly kind: ReceiptKind;
  readonly sourceRef: string;
}

/**
 * The time the receipt is made (`timeHex`, 12 hex digits), then 16 random bytes (128 bits) in
 * base64url: 34 characters, safe in a URL path. The random part is what keeps a receipt's URL
 * unguessable; the time, which the receipt shows anyway, puts each new receipt at the end of the
 * receipts' index (docs/decisions.md, "Ids that grow with time").
 */
export function newReceiptId(nowMs: number): string {
  return `${timeHex(nowMs)}${randomBase64Url(16)}`;
}

export async function findReceipt(db: Kysely<DB>, id: string): Promise<ReceiptRef | undefined> {
  const row = await db
    .selectFrom('receipts')
    .select(['id', 'merchant_id', 'kind', 'source_ref'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { id: row.id, merchantId: row.merchant_id, kind: row.kind, sourceRef: row.source_ref };
}

export async function findReceiptOf(
  db: Kysely<DB>,
  merchantId: number,
  kind: ReceiptKind,
  sourceRef: string,
): Promise<ReceiptRef | undefined> {
  const row = await db
    .selectFrom('receipts')
    .select(['id', 'merchant_id', 'kind', 'source_ref'])
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .where('source_ref', '=', sourceRef)
    .executeTakeFirst();
  return row && { id: row.id, merchantId: row.merchant_id, kind: row.kind, sourceRef: row.source_ref };
}

/** The source key of a POS basket's receipt. */
export function posBasketSourceRef(trackingUnitId: string, basketId: string): string {
  return `${trackingUnitId}/${basketId}`;
}

/** `posBasketSourceRef` in SQL, of the basket under the alias `b`: a basket joined to its receipt. */
export function posBasketSourceRefOf(b: string) {
  return sql<string>`${sql.ref(`${b}.tracking_unit_id`)} || '/' || ${sql.ref(`${b}.basket_id`)}`;
}

/**
 * The basket of a POS receipt's source key `ref` (SQL), the inverse of `posBasketSourceRefOf`: the
 * terminal's id (a UUID, without a slash) before the first slash, the basket's id after it.
 */
export function posBasketOfSourceRef(ref: RawBuilder<string>) {
  const unit = sql<string>`split_part(${ref}, '/', 1)`;
  return { trackingUnitId: unit, basketId: sql<string>`substr(${ref}, length(${unit}) + 2)` };
}

/** The receipt page's path, `/receipts/{id}`: the portal's links to a receipt. */
export function receiptPath(id: string): string {
  return `/receipts/${encodeURIComponent(id)}`;
}

/** `{PUBLIC_BASE_URL}/receipts/{id}`. */
export function receiptUrl(publicBaseUrl: string, id: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${receiptPath(id)}`;
}
