import { receiptUrl } from '../receipts/receipt.store.js';
import { AppError } from '../shared/errors.js';
import { type Page, createdRange, pageOf, pageRequest } from '../shared/paging.js';
import { profileOf } from './balance.service.js';
import { type OrderAnswer, orderAnswer } from './order-answer.js';
import {
  type OrderRecord,
  type OrderState,
  type RefundRecord,
  chargesOf,
  listOrderRecords,
  readOrderRecord,
  refundsOf,
} from './order-read.store.js';
import type { CheckoutCaller, CheckoutDeps } from './order.service.js';
import { type TransactionRecord, listTransactionRecords } from './transaction-list.store.js';

export type { OrderState } from './order-read.store.js';

/**
 * Orders read back and listed, a profile's balance transactions listed (docs/decisions.md,
 * "Reading back, lists and partial refunds"): the order as placed, in the order answer's shape,
 * with its state and its refunds.
 */

/** The query of a list filtered by creation time: createdFrom inclusive, createdTo exclusive. */
export interface ListQuery {
  readonly limit?: number;
  readonly cursor?: string;
  readonly createdFrom?: string;
  readonly createdTo?: string;
}

export interface RefundOut {
  id: string;
  amount: number;
  positions: { positionId: number; quantity: number; amount: number }[];
  createdAt: string;
}

export interface OrderReadAnswer extends Omit<OrderAnswer, 'status'> {
  status: OrderState;
  createdAt: string;
  refundedAmount: number;
  refundableAmount: number;
  refunds: RefundOut[];
}

export function refundOut(r: RefundRecord): RefundOut {
  return {
    id: r.id,
    amount: r.amountMinor,
    positions: r.positions.map((p) => ({
      positionId: p.positionId,
      quantity: p.quantity,
      amount: p.amountMinor,
    })),
    createdAt: r.createdAt.toISOString(),
  };
}

function readAnswer(
  deps: CheckoutDeps,
  o: OrderRecord,
  refunds: readonly RefundRecord[],
  charge: { amountMinor: number; balanceAfterMinor: number } | undefined,
): OrderReadAnswer {
  const base = orderAnswer(o.priced.head, o.priced.priced, {
    ...(o.receiptId === null ? {} : { receiptUrl: receiptUrl(deps.publicBaseUrl, o.receiptId) }),
    ...(charge === undefined
      ? {}
      : {
          balance: {
            oldAmount: charge.balanceAfterMinor + charge.amountMinor,
            newAmount: charge.balanceAfterMinor,
            currency: o.currency,
          },
        }),
  });
  return {
    ...base,
    status: o.state,
    createdAt: o.createdAt.toISOString(),
    refundedAmount: o.refundedMinor,
    refundableAmount: o.status === 'refunded' ? 0 : o.chargedMinor - o.refundedMinor,
    refunds: refunds.map(refundOut),
  };
}

async function answersOf(deps: CheckoutDeps, caller: CheckoutCaller, orders: readonly OrderRecord[]) {
  const ids = orders.map((o) => o.id);
  const [refunds, charges] = await Promise.all([
    refundsOf(deps.db, ids),
    chargesOf(
      deps.db,
      caller.merchantId,
      orders.filter((o) => o.chargedMinor > 0).map((o) => o.id),
    ),
  ]);
  return (o: OrderRecord) => readAnswer(deps, o, refunds.get(o.id) ?? [], charges.get(o.id));
}

export async function readOrder(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  basketId: string,
): Promise<OrderReadAnswer> {
  const order = await readOrderRecord(deps.db, caller.merchantId, basketId);
  if (!order) throw new AppError('orderNotFound');
  return (await answersOf(deps, caller, [order]))(order);
}

export async function listOrders(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  reference: string,
  query: ListQuery,
): Promise<Page<OrderReadAnswer>> {
  const range = createdRange(query);
  const page = pageRequest('orders', query, ['number', 'string']);
  const profileId = await profileOf(deps, caller, reference);
  const rows = await listOrderRecords(deps.db, caller.merchantId, profileId, range, page);
  const answer = await answersOf(deps, caller, rows.slice(0, page.limit));
  return pageOf('orders', rows, page.limit, (o) => [o.createdAt.getTime(), o.id], answer);
}

export interface TransactionOut {
  transactionId: string;
  kind: TransactionRecord['kind'];
  status: string;
  amount: number;
  currency: string;
  basketId: string | null;
  reservationReference: string | null;
  createdAt: string;
  updatedAt: string;
}

export async function listTransactions(
  deps: CheckoutDeps,
  caller: CheckoutCaller,
  reference: string,
  query: ListQuery,
): Promise<Page<TransactionOut>> {
  const range = createdRange(query);
  const page = pageRequest('transactions', query, ['number', 'string']);
  const profileId = await profileOf(deps, caller, reference);
  const rows = await listTransactionRecords(deps.db, caller.merchantId, profileId, range, page);
  return pageOf(
    'transactions',
    rows,
    page.limit,
    (t) => [t.createdAt.getTime(), t.id],
    (t) => ({
      transactionId: t.id,
      kind: t.kind,
      status: t.status,
      amount: t.amountMinor,
      currency: t.currency,
      basketId: t.basketId,
      reservationReference: t.reservationId,
      createdAt: t.createdAt.toISOString(),
      updatedAt: t.updatedAt.toISOString(),
    }),
  );
}
