import { type Static, Type } from 'typebox';
import type { Session } from '../portal-users/portal-auth.service.js';
import { chargesOf, refundsOf } from '../orders/order-read.store.js';
import { receiptPath } from '../receipts/receipt.store.js';
import { storedOrderOf } from '../reports/order-detail.store.js';
import { searchOrders } from '../reports/order-search.store.js';
import { AppError } from '../shared/errors.js';
import { Nullable } from '../shared/nullable.js';
import { OrderListingSchema } from './order-views.js';
import type { ViewDeps } from './views.js';

/** One checkout order in the portal (docs/decisions.md, "One checkout order in the portal"). */

const Minor = (description: string) => Type.Integer({ description: `${description} Minor units.` });

const RefundedPositionSchema = Type.Object({
  positionId: Type.Integer(),
  quantity: Type.Number({ description: 'How much of the position the refund took back.' }),
  amountMinor: Minor('What it gave back for them.'),
});

export const OrderDetailSchema = Type.Object(
  {
    ...OrderListingSchema.properties,
    orderTimestamp: Type.String({ description: 'The time the shop gave the order (orderTimestamp).' }),
    consumptionMode: Type.Union([Type.Literal('OnPremise'), Type.Literal('Takeaway')]),
    refundableMinor: Minor(
      'What a refund may still give back: charged less refunded, 0 once refunded whole.',
    ),
    balance: Nullable(
      Type.Object(
        {
          beforeMinor: Minor("The customer's balance just before the charge."),
          afterMinor: Minor('Just after it.'),
        },
        { description: "The charge's movement of the balance; null when nothing was charged." },
      ),
    ),
    positions: Type.Array(
      Type.Object({
        positionId: Type.Integer(),
        plu: Type.String(),
        name: Nullable(Type.String({ description: "The article's name when the order was priced." })),
        quantity: Type.Number(),
        lineGrossMinor: Minor('Unit price times quantity, before campaigns.'),
        discountMinor: Minor("The campaigns' discount on the position."),
        amountMinor: Minor('What the position came to: line gross less the discount.'),
        vatRate: Type.String({ description: 'VAT rate in percent, as priced ("19", "7").' }),
        refundedQuantity: Type.Number({ description: 'Taken back by refunds so far.' }),
        refundedMinor: Minor('Given back for the position by refunds so far.'),
      }),
      { description: 'As priced when the order was placed, in the order the shop sent them.' },
    ),
    vats: Type.Array(
      Type.Object({
        vatRate: Type.String(),
        grossMinor: Type.Integer(),
        netMinor: Type.Integer(),
        taxMinor: Type.Integer(),
      }),
    ),
    refunds: Type.Array(
      Type.Object({
        refundId: Type.String(),
        amountMinor: Minor('Given back to the balance.'),
        createdAt: Type.String({ format: 'date-time' }),
        positions: Type.Array(RefundedPositionSchema, {
          description: 'The positions it took back; empty for a refund of an amount.',
        }),
      }),
      { description: 'Oldest first.' },
    ),
  },
  { title: 'PortalOrderDetail' },
);
export type OrderDetail = Static<typeof OrderDetailSchema>;

/** The merchant's order by its id, with its positions, VAT, charge and refunds; else 404. */
export async function orderDetailView(deps: ViewDeps, s: Session, orderId: string): Promise<OrderDetail> {
  const [listed, stored] = await Promise.all([
    searchOrders(deps.db, {
      merchantId: s.merchantId,
      fromMs: null,
      toMs: null,
      number: orderId,
      clientId: null,
      profileId: null,
      state: null,
      limit: 1,
      after: null,
    }),
    storedOrderOf(deps.db, s.merchantId, orderId),
  ]);
  const order = listed.find((o) => o.orderId === orderId);
  if (!order || !stored) throw new AppError('notFound', 'No such order of this merchant.');
  const [refunds, charges] = await Promise.all([
    refundsOf(deps.db, [orderId]),
    chargesOf(deps.db, s.merchantId, order.chargedMinor > 0 ? [orderId] : []),
  ]);
  const mine = refunds.get(orderId) ?? [];
  const charge = charges.get(orderId);
  const back = new Map<number, { quantity: number; amountMinor: number }>();
  for (const r of mine) {
    for (const p of r.positions) {
      const b = back.get(p.positionId) ?? { quantity: 0, amountMinor: 0 };
      back.set(p.positionId, {
        quantity: b.quantity + p.quantity,
        amountMinor: b.amountMinor + p.amountMinor,
      });
    }
  }
  const { receiptId, ...listing } = order;
  const { head, priced } = stored;
  return {
    ...listing,
    receiptUrl: receiptId === null ? null : receiptPath(receiptId),
    orderTimestamp: head.orderTimestamp,
    consumptionMode: head.consumptionMode === 0 ? 'OnPremise' : 'Takeaway',
    refundableMinor: order.state === 'refunded' ? 0 : order.chargedMinor - order.refundedMinor,
    balance:
      charge === undefined
        ? null
        : {
            beforeMinor: charge.balanceAfterMinor + charge.amountMinor,
            afterMinor: charge.balanceAfterMinor,
          },
    positions: priced.positions.map((p) => ({
      positionId: p.positionId,
      plu: p.productPlu,
      name: priced.descriptions[p.productPlu] ?? null,
      quantity: p.quantity,
      lineGrossMinor: p.lineGrossMinor,
      discountMinor: p.discountMinor,
      amountMinor: p.priceMinor,
      vatRate: p.vat.rateText,
      refundedQuantity: back.get(p.positionId)?.quantity ?? 0,
      refundedMinor: back.get(p.positionId)?.amountMinor ?? 0,
    })),
    vats: priced.vats.map((v) => ({
      vatRate: v.rateText,
      grossMinor: v.grossMinor,
      netMinor: v.netMinor,
      taxMinor: v.taxMinor,
    })),
    refunds: mine.map((r) => ({
      refundId: r.id,
      amountMinor: r.amountMinor,
      createdAt: r.createdAt.toISOString(),
      positions: r.positions.map((p) => ({ ...p })),
    })),
  };
}
