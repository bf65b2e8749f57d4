import { type Static, Type } from 'typebox';
import type { Session } from '../portal-users/portal-auth.service.js';
import { chargesOf, refundsOf } from '../orders/order-read.store.js';
import { receiptPath } from '../receipts/receipt.store.js';
import { campaignNames } from '../campaigns/campaign-names.store.js';
import { portalUserEmails, storedOrderOf } from '../reports/order-detail.store.js';
import { type RefundQuote, quoteRefund, refundOrder } from '../orders/refund.service.js';
import type { RefundAsk } from '../orders/refund-plan.js';
import { currencyExponent, decimalPlaces, decimalToMinor, parseDecimal } from '../shared/money.js';
import { searchOrders } from '../reports/order-search.store.js';
import { AppError } from '../shared/errors.js';
import { Nullable } from '../shared/nullable.js';
import { OrderListingSchema } from './order-views.js';
import type { ViewDeps } from './views.js';
import { ReceiptMailSchema } from './mail-schemas.js';
import { RequestId } from './schemas.js';
import { RefundPositions } from '../wire/schemas.js';
import { receiptMailOut } from './basket-views.js';
import { receiptNotificationState } from '../notifications/purchase-notification.store.js';

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
    campaigns: Type.Array(
      Type.Object({
        campaignId: Type.Integer(),
        name: Nullable(
          Type.String({ description: "The campaign's name now; null for one no longer there." }),
        ),
        pricedName: Nullable(
          Type.String({
            description:
              "Its name when the order was priced, as the customer's receipt shows it; null for an order priced " +
              'before its pricing kept the names (its receipt shows the name now).',
          }),
        ),
        uses: Type.Integer({ description: 'Its applications in the order.' }),
        discountMinor: Minor('Its discount on the order.'),
      }),
      {
        description:
          'The campaigns that gave the order its discounts, as its pricing kept them; empty for an order priced before ' +
          '2026-12-06, which kept none (its positions still show their discounts).',
      },
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
        by: Nullable(
          Type.String({
            description:
              'The portal user who made it (e-mail); null: the shop, through the checkout interface.',
          }),
        ),
        reason: Nullable(Type.String({ description: 'The reason the portal user gave.' })),
        requestId: Nullable(Type.String({ description: "The portal request's requestId." })),
      }),
      { description: 'Oldest first.' },
    ),
    receiptMail: ReceiptMailSchema(
      "What became of the consumer's purchase notification (mail and push) of the order's receipt, as for a basket's; null when none was written (a profile with neither an e-mail address nor a browser subscribed to push).",
    ),
  },
  { title: 'PortalOrderDetail' },
);
export type OrderDetail = Static<typeof OrderDetailSchema>;

/** The merchant's order by its id as the order list shows it; else 404. */
async function orderListingOf(deps: ViewDeps, s: Session, orderId: string) {
  const listed = await searchOrders(deps.db, {
    merchantId: s.merchantId,
    fromMs: null,
    toMs: null,
    number: orderId,
    clientId: null,
    profileId: null,
    state: null,
    receiptMail: null,
    limit: 1,
    after: null,
  });
  const order = listed.find((o) => o.orderId === orderId);
  if (!order) throw new AppError('notFound', 'No such order of this merchant.');
  return order;
}

/** The merchant's order by its id, with its positions, VAT, charge, refunds and receipt mail; else 404. */
export async function orderDetailView(deps: ViewDeps, s: Session, orderId: string): Promise<OrderDetail> {
  const [order, stored] = await Promise.all([
    orderListingOf(deps, s, orderId),
    storedOrderOf(deps.db, s.merchantId, orderId),
  ]);
  if (!stored) throw new AppError('notFound', 'No such order of this merchant.');
  const [refunds, charges, mail] = await Promise.all([
    refundsOf(deps.db, [orderId]),
    chargesOf(deps.db, s.merchantId, order.chargedMinor > 0 ? [orderId] : []),
    order.receiptId === null ? null : receiptNotificationState(deps.db, s.merchantId, order.receiptId),
  ]);
  const mine = refunds.get(orderId) ?? [];
  const given = stored.priced.campaigns ?? [];
  const [authors, names] = await Promise.all([
    portalUserEmails(
      deps.db,
      s.merchantId,
      mine.flatMap((r) => (r.portal ? [r.portal.portalUserId] : [])),
    ),
    campaignNames(
      deps.db,
      s.merchantId,
      given.map((c) => c.campaignId),
    ),
  ]);
  const charge = charges.get(orderId);
  const back = new Map<number, { quantity: number; amountMinor: number }>();
  for (const r of mine) {
    for (const p of r.positions) {
      const b = back.get(p.positionId) ?? { quantity: 0, amountMinor: 0 };
      // Quantities have up to three decimals: added in thousandths, never drifting as floats do.
      back.set(p.positionId, {
        quantity: (Math.round(b.quantity * 1000) + Math.round(p.quantity * 1000)) / 1000,
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
    campaigns: given.map((c) => ({
      campaignId: c.campaignId,
      name: names.get(c.campaignId) ?? null,
      pricedName: c.name ?? null,
      uses: c.uses,
      discountMinor: c.discountMinor,
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
      by: r.portal ? (authors.get(r.portal.portalUserId) ?? null) : null,
      reason: r.portal?.reason ?? null,
      requestId: r.portal?.requestId ?? null,
    })),
    receiptMail: receiptMailOut(mail),
  };
}

/** What a refund gives back: an amount, positions, or with neither all that is still refundable. */
const refundAsk = {
  amount: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,12}([.][0-9]{1,4})?$',
      description:
        'Major units ("3.50"), at most the currency’s decimals, more than zero; without it all that is still refundable.',
    }),
  ),
  positions: Type.Optional(RefundPositions),
};

export const OrderRefundQuoteBody = Type.Object(refundAsk, {
  title: 'PortalOrderRefundAsk',
  description: 'The refund asked about: either amount or positions; neither: everything still refundable.',
});
export type OrderRefundQuoteBody = Static<typeof OrderRefundQuoteBody>;

export const OrderRefundQuoteSchema = Type.Object(
  {
    amountMinor: Minor('What the refund would give back to the customer’s balance now.'),
    whole: Type.Boolean({ description: 'True when the order would then be refunded in whole.' }),
    currency: Type.String(),
  },
  { title: 'PortalOrderRefundQuote' },
);

export const OrderRefundBody = Type.Object(
  {
    requestId: RequestId(
      'A UUID the client makes once per refund it means: sent again with the same order and amount it answers the first refund, never a second one.',
    ),
    ...refundAsk,
    reason: Type.Optional(
      Type.String({ maxLength: 500, description: 'Kept with the refund and shown with it.' }),
    ),
  },
  {
    title: 'PortalOrderRefund',
    description: 'Either amount or positions; neither: everything still refundable.',
  },
);
export type OrderRefundBody = Static<typeof OrderRefundBody>;

/** The amount asked for in minor units: exact in the currency, more than zero; else 400. */
function askedMinor(amount: string, currency: string): number {
  const exponent = currencyExponent(currency);
  const d = parseDecimal(amount);
  const minor = d && decimalPlaces(d) <= exponent ? Number(decimalToMinor(d, exponent)) : null;
  if (minor === null || !Number.isSafeInteger(minor) || minor <= 0) {
    throw new AppError('refused', `amount must be more than zero with at most ${exponent} decimals.`, {
      details: { field: 'amount' },
    });
  }
  return minor;
}

/** The refund the body asks for, as the service takes it: the amount in minor units. */
function askOf(body: OrderRefundQuoteBody, currency: string): RefundAsk {
  return {
    ...(body.amount === undefined ? {} : { amount: askedMinor(body.amount, currency) }),
    ...(body.positions ? { positions: body.positions } : {}),
  };
}

/**
 * What an owner's refund would give back now (docs/decisions.md, "Refunding an order from the
 * portal"): the refund's own plan, booked nowhere, so that the page asks with that amount.
 */
export async function quoteRefundView(
  deps: ViewDeps,
  s: Session,
  orderId: string,
  body: OrderRefundQuoteBody,
): Promise<RefundQuote> {
  const order = await orderListingOf(deps, s, orderId);
  return quoteRefund(deps.services.checkout, s, order.basketId, askOf(body, order.currency));
}

/**
 * An owner's refund of an order (docs/decisions.md, "Refunding an order from the portal"): the
 * checkout interface's own refund (its rules, posting, events and the customer's mail), with who
 * made it and why; the order as it is then.
 */
export async function refundOrderView(
  deps: ViewDeps,
  s: Session,
  orderId: string,
  body: OrderRefundBody,
): Promise<OrderDetail> {
  const order = await orderListingOf(deps, s, orderId);
  const reason = body.reason?.trim() || null;
  const portal = { portalUserId: s.userId, reason, requestId: body.requestId.toLowerCase() };
  await refundOrder(
    deps.services.checkout,
    s,
    order.basketId,
    askOf(body, order.currency),
    undefined,
    portal,
  );
  return orderDetailView(deps, s, orderId);
}
