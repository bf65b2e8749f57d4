import type { Kysely } from 'kysely';
import type { CreatedRange, PageRequest } from '../shared/paging.js';
import type { DB } from '../store/schema.js';
import type { BalanceTransactionKind } from '../store/tables/checkout.js';

/** A profile's balance transactions, newest first, paged by (created_at, id). */

export interface TransactionRecord {
  readonly id: string;
  readonly kind: BalanceTransactionKind;
  readonly status: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly basketId: string | null;
  readonly reservationId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export async function listTransactionRecords(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  range: CreatedRange,
  page: PageRequest,
): Promise<TransactionRecord[]> {
  let q = db
    .selectFrom('balance_transactions as t')
    .leftJoin('checkout_orders as o', 'o.id', 't.order_id')
    .select([
      't.id',
      't.kind',
      't.status',
      't.amount_minor',
      't.currency',
      'o.basket_id',
      't.reservation_id',
      't.created_at',
      't.updated_at',
    ])
    .where('t.merchant_id', '=', merchantId)
    .where('t.profile_id', '=', profileId);
  if (range.fromMs !== undefined) q = q.where('t.created_at', '>=', new Date(range.fromMs));
  if (range.toMs !== undefined) q = q.where('t.created_at', '<', new Date(range.toMs));
  const after = page.after;
  if (after) {
    const at = new Date(Number(after[0]));
    const id = String(after[1]);
    q = q.where((eb) =>
      eb.or([eb('t.created_at', '<', at), eb.and([eb('t.created_at', '=', at), eb('t.id', '<', id)])]),
    );
  }
  const rows = await q
    .orderBy('t.created_at', 'desc')
    .orderBy('t.id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    status: r.status,
    amountMinor: Number(r.amount_minor),
    currency: r.currency.trim(),
    basketId: r.basket_id,
    reservationId: r.reservation_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}
