import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import type { TransferAuthorisation, TransferKind } from '../store/tables/ledger.js';
import { posBasketSourceRefOf } from '../receipts/receipt.store.js';

/**
 * What each movement of a profile's balance was for, as the consumer portal names it
 * (docs/decisions.md, "Purchases, receipts and the purchase mail"): read from the ledger transfer
 * and what its transactionId and terminal point to.
 */
export type MovementPurpose =
  /** Topped up online (checkout interface). */
  | 'top_up'
  /** Loaded at a till (POS addBalance). */
  | 'till_load'
  /** Paid at a till (POS withdrawBalance). */
  | 'till_payment'
  /** A checkout order paid from the balance. */
  | 'order'
  /** A checkout order's charge given back. */
  | 'refund'
  /** The merchant corrected the balance in the portal or the operator API. */
  | 'correction'
  /** A card's own balance moved in when the card was linked. */
  | 'card_linked';

export interface Movement {
  readonly time: Date;
  /** Positive: to the balance; negative: from it. */
  readonly amountMinor: number;
  readonly purpose: MovementPurpose;
  /** The outlet of the till, the shop of the order. */
  readonly place: string | null;
  /** What an order bought, e.g. "2 × Cappuccino, 1 × Croissant". */
  readonly what: string | null;
  readonly receiptId: string | null;
}

export interface TransferRow {
  readonly created_at: Date | string;
  /** Signed as the profile sees it: positive to its balance, negative from it. */
  readonly amountMinor: number;
  readonly kind: TransferKind;
  readonly transaction_id: string;
  readonly tracking_unit_id: string | null;
  readonly authorised_by: TransferAuthorisation;
}

// The order of a charge or refund: `charge:<order id>`, `refund:<order id>` or, for a later
// partial refund, `refund:<order id>:<refund id>`.
const ORDER_TX = /^(charge|refund):([^:]+)/;

function purposeOf(t: TransferRow): MovementPurpose {
  if (t.kind === 'merge') return 'card_linked';
  if (t.kind === 'charge') return 'order';
  if (t.kind === 'refund') return 'refund';
  if (t.authorised_by === 'operator') return 'correction';
  if (t.kind === 'top_up') return t.tracking_unit_id === null ? 'top_up' : 'till_load';
  return t.tracking_unit_id === null ? 'correction' : 'till_payment';
}

/** "2 × Cappuccino, 1 × Croissant" from an order's priced positions. */
function orderItems(priced: {
  priced: { positions: { productPlu: string; quantity: number }[]; descriptions: Record<string, string> };
}): string {
  return priced.priced.positions
    .map((p) => `${p.quantity} × ${priced.priced.descriptions[p.productPlu] ?? p.productPlu}`)
    .join(', ');
}

/** The movements of the profile's account, newest first, each with its purpose, place and receipt. */
export async function movementsOf(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  transfers: readonly TransferRow[],
): Promise<Movement[]> {
  const orderIds = [
    ...new Set(transfers.map((t) => ORDER_TX.exec(t.transaction_id)?.[2]).filter((x) => x !== undefined)),
  ];
  const orders =
    orderIds.length === 0
      ? []
      : await db
          .selectFrom('checkout_orders as o')
          .leftJoin('checkout_clients as c', (j) =>
            j.onRef('c.merchant_id', '=', 'o.merchant_id').onRef('c.id', '=', 'o.client_id'),
          )
          .select(['o.id', 'o.receipt_id', 'o.priced', 'c.name as shop'])
          .where('o.merchant_id', '=', merchantId)
          .where('o.profile_id', '=', profileId)
          .where('o.id', 'in', orderIds)
          .execute();
  const byOrder = new Map(orders.map((o) => [o.id, o]));
  const units = [...new Set(transfers.map((t) => t.tracking_unit_id).filter((x): x is string => x !== null))];
  const outlets =
    units.length === 0
      ? []
      : await db
          .selectFrom('tracking_units as u')
          .innerJoin('outlets as o', (j) =>
            j.onRef('o.merchant_id', '=', 'u.merchant_id').onRef('o.id', '=', 'u.outlet_id'),
          )
          .select(['u.id', 'o.name'])
          .where('u.merchant_id', '=', merchantId)
          .where('u.id', 'in', units)
          .execute();
  const outletOf = new Map(outlets.map((o) => [o.id, o.name]));
  const out: Movement[] = [];
  for (const t of transfers) {
    const purpose = purposeOf(t);
    const time = new Date(t.created_at);
    const { amountMinor } = t;
    const base = { time, purpose, place: null, what: null, receiptId: null };
    const order = byOrder.get(ORDER_TX.exec(t.transaction_id)?.[2] ?? '');
    if ((purpose === 'order' || purpose === 'refund') && order) {
      out.push({
        ...base,
        amountMinor,
        place: order.shop ?? null,
        what: orderItems(order.priced),
        receiptId: order.receipt_id,
      });
    } else if ((purpose === 'till_payment' || purpose === 'till_load') && t.tracking_unit_id !== null) {
      const receiptId =
        purpose === 'till_payment'
          ? await paidBasketReceipt(db, merchantId, profileId, t.tracking_unit_id, time)
          : null;
      out.push({ ...base, amountMinor, place: outletOf.get(t.tracking_unit_id) ?? null, receiptId });
    } else {
      out.push({ ...base, amountMinor });
    }
  }
  return out;
}

/**
 * The receipt of the basket a till payment was for: the profile's basket at that till that was
 * open when the balance was withdrawn (uploaded before, granted at or after it); the first such
 * grant when there are several. Null when the till booked the payment outside a basket of the profile.
 */
async function paidBasketReceipt(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  unitId: string,
  time: Date,
): Promise<string | null> {
  const row = await db
    .selectFrom('baskets as b')
    .innerJoin('receipts as r', (j) =>
      j
        .onRef('r.merchant_id', '=', 'b.merchant_id')
        .on('r.kind', '=', 'pos_basket')
        .on('r.source_ref', '=', posBasketSourceRefOf('b')),
    )
    .select('r.id')
    .where('b.profile_id', '=', profileId)
    .where('b.merchant_id', '=', merchantId)
    .where('b.tracking_unit_id', '=', unitId)
    .where('b.uploaded_at', '<=', time)
    .where('b.granted_at', '>=', time)
    // Never the receipt of a basket bought or paid with a gift card (docs/decisions.md,
    // "Gift-card privacy and hardened pages"): the movement shows, without its receipt.
    .where(sql<boolean>`b.result->>'giftCard' IS NULL`)
    .orderBy('b.granted_at')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}
