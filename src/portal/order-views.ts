import { type Static, Type } from 'typebox';
import type { Session } from '../portal-users/portal-auth.service.js';
import { orderTotals, searchOrders } from '../reports/order-search.store.js';
import { Nullable } from '../shared/nullable.js';
import { type PageKey, pageOf, pageRequest } from '../shared/paging.js';
import { pageQueryFields } from '../wire/paging.js';
import type { ViewDeps } from './views.js';
import { receiptPath } from '../receipts/receipt.store.js';
import { ReceiptMailFilterSchema } from './mail-schemas.js';

/** The order's state, as the checkout interface's read-back words it. */
const OrderStateSchema = Type.Union(
  [Type.Literal('completed'), Type.Literal('partially_refunded'), Type.Literal('refunded')],
  {
    description:
      'completed: nothing given back; partially_refunded: part of the charge given back to the balance; refunded: all of it.',
  },
);

/** The checkout order search's filters (`GET /portal/api/v1/orders`). */
export const OrderQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Placed at or after.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Placed before.' })),
  number: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The order's id, or the shop's basketId, exactly as sent.",
    }),
  ),
  clientId: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Only the orders of this checkout client (shop or app).' }),
  ),
  profileId: Type.Optional(Type.Integer({ minimum: 1, description: 'Only the orders of this customer.' })),
  state: Type.Optional(OrderStateSchema),
  receiptMail: Type.Optional(ReceiptMailFilterSchema),
  ...pageQueryFields,
});
export type OrderQuery = Static<typeof OrderQuery>;

export const OrderListingSchema = Type.Object(
  {
    orderId: Type.String(),
    basketId: Type.String({ description: "The shop's own key of the order (basketId)." }),
    clientId: Type.Integer(),
    shop: Nullable(Type.String({ description: 'The checkout client (shop or app) it was placed in.' })),
    profileId: Type.Integer(),
    customerName: Nullable(Type.String({ description: "The customer profile's full name." })),
    createdAt: Type.String({ format: 'date-time', description: 'When the order was placed.' }),
    currency: Type.String(),
    totalGrossMinor: Type.Integer({ description: 'The priced order: positions less rewards, minor units.' }),
    chargedMinor: Type.Integer({ description: "Paid from the customer's balance." }),
    refundedMinor: Type.Integer({ description: 'Given back to the balance by refunds so far.' }),
    state: OrderStateSchema,
    receiptUrl: Nullable(Type.String({ description: "The order's digital receipt, /receipts/{id}." })),
  },
  { title: 'PortalOrder' },
);

/** The cursor's list name: a cursor of another list is refused. */
const LIST = 'portalOrders';

/** The order's key in a cursor: its time (ms) and id. */
function cursorKey(key: PageKey | null): [number, string] | null {
  // The cursor's decoder checked the key's kinds (the list's KeyShape).
  return key as [number, string] | null;
}

/** The search's filters as the store takes them. */
export function filterOf(s: Session, q: Omit<OrderQuery, 'limit' | 'cursor'>) {
  const time = (t: string | undefined) => (t === undefined ? null : Date.parse(t));
  return {
    merchantId: s.merchantId,
    fromMs: time(q.from),
    toMs: time(q.to),
    number: q.number?.trim() || null,
    clientId: q.clientId ?? null,
    profileId: q.profileId ?? null,
    state: q.state ?? null,
    receiptMail: q.receiptMail ?? null,
  };
}

/** The same filters as the search's, without its page. */
export const OrderTotalsQuery = Type.Omit(OrderQuery, ['limit', 'cursor']);
export type OrderTotalsQuery = Static<typeof OrderTotalsQuery>;

export const OrderTotalsSchema = Type.Object(
  {
    orders: Type.Integer({ description: 'Every order the filters find, on every page.' }),
    totalGrossMinor: Type.Integer({ description: 'Their totals as priced, minor units.' }),
    chargedMinor: Type.Integer({ description: "Of it, paid from the customers' balances." }),
    refundedMinor: Type.Integer({
      description: 'Given back to the balances by refunds of these orders so far (whenever made).',
    }),
  },
  { title: 'PortalOrderTotals' },
);

/** What every order the filters find adds up to (docs/decisions.md, "Finding checkout orders"). */
export async function orderTotalsView(deps: ViewDeps, s: Session, q: OrderTotalsQuery) {
  return orderTotals(deps.db, filterOf(s, q));
}

/** A page of the checkout orders found, newest first. */
export async function orderSearchView(deps: ViewDeps, s: Session, q: OrderQuery) {
  const page = pageRequest(LIST, q, ['number', 'string']);
  const rows = await searchOrders(deps.db, {
    ...filterOf(s, q),
    limit: page.limit,
    after: cursorKey(page.after),
  });
  return pageOf(
    LIST,
    rows,
    page.limit,
    (o) => [Date.parse(o.createdAt), o.orderId],
    ({ receiptId, ...o }) => ({
      ...o,
      receiptUrl: receiptId === null ? null : receiptPath(receiptId),
    }),
  );
}
