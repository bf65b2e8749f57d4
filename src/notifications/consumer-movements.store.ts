import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { type StatementPage, type StatementRow, accountStatement } from '../ledger/statement.store.js';
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
  | 'correction';

export interface Movement {
  /** The ledger's id of the transfer: the key the movements are paged by. */
  readonly id: number;
  readonly time: Date;
  /** Positive: to the balance; negative: from it. */
  readonly amountMinor: number;
  /** The balance after this movement: the sum of the movements up to it. */
  readonly balanceAfterMinor: number;
  readonly purpose: MovementPurpose;
  /** The outlet of the till, the shop of the order. */
  readonly place: string | null;
  /** What an order bought, e.g. "2 × Cappuccino, 1 × Croissant". */
  readonly what: string | null;
  readonly receiptId: string | null;
}

// The order of a charge or refund: `charge:<order id>`, `refund:<order id>` or, for a later
// partial refund, `refund:<order id>:<refund id>`.
const ORDER_TX = /^(charge|refund):([^:]+)/;

function purposeOf(t: StatementRow): MovementPurpose {
  if (t.kind === 'charge') return 'order';
  if (t.kind === 'refund') return 'refund';
  if (t.authorisedBy === 'operator') return 'correction';
  if (t.kind === 'top_up') return t.trackingUnitId === null ? 'top_up' : 'till_load';
  return t.trackingUnitId === null ? 'correction' : 'till_payment';
}

/** "2 × Cappuccino, 1 × Croissant" from an order's priced positions. */
function orderItems(priced: {
  priced: { positions: { productPlu: string; quantity: number }[]; descriptions: Record<string, string> };
}): string {
  return priced.priced.positions
    .map((p) => `${p.quantity} × ${priced.priced.descriptions[p.productPlu] ?? p.productPlu}`)
    .join(', ');
}

/**
 * A page of the movements of the profile's account (its statement), newest first, each with its
 * purpose, place, receipt and the balance after it.
 */
export async function movementsOf(
  db: Kysely<DB>,
  merchantId: number,
  profile: { readonly id: number; readonly accountId: number },
  page: StatementPage,
): Promise<Movement[]> {
  const profileId = profile.id;
  const transfers = await accountStatement(db, merchantId, profile.accountId, page);
  const orderIds = [
    ...new Set(transfers.map((t) => ORDER_TX.exec(t.transactionId)?.[2]).filter((x) => x !== undefined)),
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
  const units = [...new Set(transfers.map((t) => t.trackingUnitId).filter((x): x is string => x !== null))];
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
    const time = t.createdAt;
    const { id, amountMinor, balanceAfterMinor } = t;
    const base = {
      id,
      time,
      amountMinor,
      balanceAfterMinor,
      purpose,
      place: null,
      what: null,
      receiptId: null,
    };
    const order = byOrder.get(ORDER_TX.exec(t.transactionId)?.[2] ?? '');
    if ((purpose === 'order' || purpose === 'refund') && order) {
      out.push({
        ...base,
        place: order.shop ?? null,
        what: orderItems(order.priced),
        receiptId: order.receipt_id,
      });
    } else if ((purpose === 'till_payment' || purpose === 'till_load') && t.trackingUnitId !== null) {
      const receiptId =
        purpose === 'till_payment'
          ? await paidBasketReceipt(db, merchantId, profileId, t.trackingUnitId, time)
          : null;
      out.push({ ...base, place: outletOf.get(t.trackingUnitId) ?? null, receiptId });
    } else {
      out.push(base);
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
