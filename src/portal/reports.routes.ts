import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { PageOf, pageErrors } from '../wire/paging.js';
import { answer, auth } from '../wire/openapi.js';
import {
  BasketFilterQuery,
  BasketQuery,
  basketFilterOf,
  basketSearchView,
  basketView,
} from './basket-views.js';
import { basketCsv } from './basket-csv.js';
import { consumerCsv } from './consumer-csv.js';
import type { Session } from '../portal-users/portal-auth.service.js';
import {
  BasketDetailSchema,
  BasketListingSchema,
  ConsumerText,
  OWNER_ONLY,
  portalErrors,
} from './schemas.js';
import { requireOwner, requireSession } from './session.js';
import { viewDeps } from './views.js';
import { orderCsv } from './order-csv.js';
import { csvStream } from './csv-export.js';
import { sendOrderReceiptAgain, sendReceiptAgain } from '../notifications/receipt-resend.service.js';
import {
  OrderListingSchema,
  OrderQuery,
  OrderTotalsQuery,
  OrderTotalsSchema,
  filterOf,
  orderSearchView,
  orderTotalsView,
} from './order-views.js';
import {
  OrderDetailSchema,
  OrderRefundBody,
  OrderRefundQuoteBody,
  OrderRefundQuoteSchema,
  quoteRefundView,
  orderDetailView,
  refundOrderView,
} from './order-detail-views.js';

const TAG = 'Portal: reports';
/** A refund's refusals, the same for the refund and for its quote. */
const REFUND_400 =
  'Body invalid, the amount zero or finer than the currency, or a quantity with more than three decimals (invalid_request).';
const REFUND_422 =
  'More than is still refundable (refund_exceeds_refundable, details.refundableAmount); a position not of the order or named twice (refund_position_unknown, details.positionId); more of a position than is left of it (refund_quantity_exceeds, details.positionId, details.remainingQuantity); both an amount and positions (refund_amount_and_positions).';
const OrderParams = Type.Object({ orderId: Type.String({ minLength: 1, maxLength: 100 }) });
const BasketParams = Type.Object({
  trackingUnitId: Type.String({ maxLength: 100 }),
  basketId: Type.String({ maxLength: 200 }),
});

export const portalReportRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = viewDeps(app);

  app.get(
    '/baskets',
    {
      schema: {
        tags: [TAG],
        summary: 'Search baskets by bill number or basket id, time, outlet, terminal, card and state',
        operationId: 'searchPortalBaskets',
        description: 'Newest first, a page at a time (docs/decisions.md, "Paging").',
        security: auth.portal,
        querystring: BasketQuery,
        response: {
          200: answer(
            'A page of the baskets found, newest first.',
            PageOf(BasketListingSchema, 'PortalBasketPage'),
          ),
          ...portalErrors(pageErrors),
        },
      },
    },
    async (request) => basketSearchView(deps, requireSession(request), request.query),
  );

  app.get(
    '/orders',
    {
      schema: {
        tags: [TAG],
        summary: "Search checkout orders by order id or the shop's basketId, time, shop, customer and state",
        operationId: 'searchPortalOrders',
        description:
          'The orders the checkout interface placed, whether they charged the customer\'s balance or not; newest first by the time placed, a page at a time (docs/decisions.md, "Finding checkout orders", "Paging").',
        security: auth.portal,
        querystring: OrderQuery,
        response: {
          200: answer(
            'A page of the orders found, newest first.',
            PageOf(OrderListingSchema, 'PortalOrderPage'),
          ),
          ...portalErrors(pageErrors),
        },
      },
    },
    async (request) => orderSearchView(deps, requireSession(request), request.query),
  );

  app.get(
    '/orders/totals',
    {
      schema: {
        tags: [TAG],
        summary: 'What every checkout order the search finds adds up to, on every page',
        operationId: 'getPortalOrderTotals',
        description:
          'The same filters as GET /orders, without paging: the orders, their totals, what they charged and what refunds gave back of them (docs/decisions.md, "Finding checkout orders").',
        security: auth.portal,
        querystring: OrderTotalsQuery,
        response: {
          200: answer('The sums.', OrderTotalsSchema),
          ...portalErrors({ 400: 'A filter invalid (invalid_request).' }),
        },
      },
    },
    async (request) => orderTotalsView(deps, requireSession(request), request.query),
  );

  /**
   * A list's CSV (src/portal/csv-export.ts): streamed a batch at a time, so its answer is not typed
   * as one string; a filter the list refuses is refused before anything is sent.
   */
  function csvRoute<Q extends TSchema>(
    path: string,
    doc: { summary: string; operationId: string; description: string; filename: string },
    querystring: Q,
    csv: (s: Session, q: Static<Q>) => AsyncGenerator<string>,
  ): void {
    fastify.get<{ Querystring: Static<Q> }>(
      path,
      {
        schema: {
          tags: [TAG],
          summary: doc.summary,
          operationId: doc.operationId,
          description: doc.description,
          security: auth.portal,
          querystring,
          response: {
            200: {
              description: 'CSV, a header line first.',
              content: { 'text/csv': { schema: Type.String() } },
            },
            ...portalErrors({ 400: 'A filter invalid (invalid_request).' }),
          },
        },
      },
      async (request, reply) => {
        const s = requireSession(request);
        const body = await csvStream(csv(s, request.query as Static<Q>));
        reply.header('content-disposition', `attachment; filename="${doc.filename}"`);
        reply.type('text/csv; charset=utf-8');
        return reply.send(body);
      },
    );
  }

  csvRoute(
    '/orders.csv',
    {
      summary: 'Every checkout order the search finds, as CSV',
      operationId: 'downloadPortalOrders',
      description:
        'The same filters as GET /orders, without paging: one line per order, newest first, its day in the merchant\'s time zone, amounts in major units with a dot, a typed name never read as a formula (docs/decisions.md, "Finding checkout orders").',
      filename: 'orders.csv',
    },
    OrderTotalsQuery,
    (s, q) => orderCsv(deps.db, filterOf(s, q), s.timeZone, app.ctx.config.publicBaseUrl),
  );

  csvRoute(
    '/baskets.csv',
    {
      summary: 'Every basket the search finds, as CSV',
      operationId: 'downloadPortalBaskets',
      description:
        'The same filters as GET /baskets, without paging: one line per basket, newest first, its day in the merchant\'s time zone, amounts in major units with a dot, a typed name never read as a formula (docs/decisions.md, "Finding baskets and customers").',
      filename: 'baskets.csv',
    },
    BasketFilterQuery,
    (s, q) => basketCsv(deps.db, basketFilterOf(s, q), s.timeZone),
  );

  csvRoute(
    '/consumers.csv',
    {
      summary: 'Every customer the search finds, or all of them, as CSV',
      operationId: 'downloadPortalConsumers',
      description:
        'The same q as GET /consumers, without paging: one line per customer, by id, oldest first, with their language, balance in major units with a dot, points held (expired ones left out), cards and the day they were made in the merchant\'s time zone; a typed name never read as a formula (docs/decisions.md, "All customers, page by page").',
      filename: 'customers.csv',
    },
    Type.Object({ q: Type.Optional(ConsumerText) }),
    (s, q) =>
      consumerCsv(
        deps.db,
        { merchantId: s.merchantId, text: q.q ?? null, nowMs: deps.clock.nowMs() },
        s.timeZone,
      ),
  );

  app.get(
    '/orders/:orderId',
    {
      schema: {
        tags: [TAG],
        summary: 'One checkout order with its positions as priced, its charge, refunds, VAT and receipt',
        operationId: 'getPortalOrder',
        description:
          'By the order\'s id (orderId of the order search), in the merchant (docs/decisions.md, "One checkout order in the portal").',
        security: auth.portal,
        params: OrderParams,
        response: {
          200: answer('The order.', OrderDetailSchema),
          ...portalErrors({ 404: "Order unknown, or another merchant's (not_found)." }),
        },
      },
    },
    async (request) => orderDetailView(deps, requireSession(request), request.params.orderId),
  );

  app.post(
    '/orders/:orderId/refunds',
    {
      schema: {
        tags: [TAG],
        summary:
          "Refund a checkout order to the customer's balance (owners only): an amount, positions, or all still refundable",
        operationId: 'refundPortalOrder',
        description:
          'The checkout interface’s own refund (the same rules, ledger posting, webhook events and customer mail), kept with ' +
          'who made it and the reason. A request sent again with the same requestId, order, amount and positions answers ' +
          'the first refund and gives nothing back twice (docs/decisions.md, "Refunding an order from the portal").',
        security: auth.portalChange,
        params: OrderParams,
        body: OrderRefundBody,
        response: {
          200: answer('The order after the refund.', OrderDetailSchema),
          ...portalErrors({
            400: REFUND_400,
            403: OWNER_ONLY,
            404: "Order unknown, or another merchant's (not_found).",
            409: 'The requestId was used for another refund: another order, amount or positions (refund_request_reused).',
            422: REFUND_422,
          }),
        },
      },
    },
    async (request) => refundOrderView(deps, requireOwner(request), request.params.orderId, request.body),
  );

  app.post(
    '/orders/:orderId/refunds/quote',
    {
      schema: {
        tags: [TAG],
        summary: 'What a refund of a checkout order would give back now, booking nothing (owners only)',
        operationId: 'quotePortalOrderRefund',
        description:
          'The refund’s own plan over the order and its refunds as they stand (the same rules and the same ' +
          'refusals), so that the page asks the owner with the amount the refund will move. Nothing is ' +
          'booked or kept (docs/decisions.md, "Refunding an order from the portal").',
        security: auth.portalChange,
        params: OrderParams,
        body: OrderRefundQuoteBody,
        response: {
          200: answer('What the refund would give back.', OrderRefundQuoteSchema),
          ...portalErrors({
            400: REFUND_400,
            403: OWNER_ONLY,
            404: "Order unknown, or another merchant's (not_found).",
            422: REFUND_422,
          }),
        },
      },
    },
    async (request) => quoteRefundView(deps, requireOwner(request), request.params.orderId, request.body),
  );

  app.post(
    '/orders/:orderId/receiptMail',
    {
      schema: {
        tags: [TAG],
        summary: "Send the checkout order's receipt to its customer again",
        operationId: 'sendPortalOrderReceiptAgain',
        description:
          'As for a basket (POST /baskets/{trackingUnitId}/{basketId}/receiptMail): a new purchase notification of the ' +
          "order, due now, to the customer's e-mail address as it is now and to their push subscriptions; what becomes " +
          'of it shows in `receiptMail`. Only an order paid from the balance sent one. Owners and staff alike ' +
          '(docs/decisions.md, "Sending the receipt again").',
        security: auth.portalChange,
        params: OrderParams,
        response: {
          200: answer('The order, its receiptMail the new message (pending).', OrderDetailSchema),
          ...portalErrors(
            {
              404: "Order unknown, or another merchant's (not_found).",
              409:
                'The receipt mail is still on its way (receipt_mail_pending); the order was paid otherwise, so no mail ' +
                'was sent for it (receipt_mail_paid_otherwise); or the customer has neither an e-mail address nor push ' +
                '(receipt_mail_nobody).',
            },
            { change: true },
          ),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const { orderId } = request.params;
      await sendOrderReceiptAgain(deps.db, { merchantId: s.merchantId, orderId }, deps.clock.nowMs());
      return orderDetailView(deps, s, orderId);
    },
  );

  app.get(
    '/baskets/:trackingUnitId/:basketId',
    {
      schema: {
        tags: [TAG],
        summary: 'One basket with its rewards, points, returns and receipt',
        operationId: 'getPortalBasket',
        security: auth.portal,
        params: BasketParams,
        response: {
          200: answer('The basket.', BasketDetailSchema),
          ...portalErrors({ 404: "Basket unknown, or another merchant's (not_found)." }),
        },
      },
    },
    async (request) =>
      basketView(deps, requireSession(request), request.params.trackingUnitId, request.params.basketId),
  );

  app.post(
    '/baskets/:trackingUnitId/:basketId/receiptMail',
    {
      schema: {
        tags: [TAG],
        summary: "Send the basket's receipt to its customer again",
        operationId: 'sendPortalBasketReceiptAgain',
        description:
          "A new purchase notification of the grant, due now, to the customer's e-mail address as it is now (after " +
          'an owner corrected it, say), and to their push subscriptions; what becomes of it shows in `receiptMail` ' +
          'as for the first. Owners and staff alike (docs/decisions.md, "Sending the receipt again").',
        security: auth.portalChange,
        params: BasketParams,
        response: {
          200: answer('The basket, its receiptMail the new message (pending).', BasketDetailSchema),
          ...portalErrors(
            {
              404: "Basket unknown, or another merchant's (not_found).",
              409:
                'The receipt mail is still on its way (receipt_mail_pending); the basket has no receipt yet, as it is not ' +
                'granted (receipt_missing); or nobody to send it to: no customer profile, or neither an e-mail address ' +
                'nor push (receipt_mail_nobody).',
            },
            { change: true },
          ),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const { trackingUnitId, basketId } = request.params;
      await sendReceiptAgain(
        deps.db,
        { merchantId: s.merchantId, trackingUnitId, basketId },
        deps.clock.nowMs(),
      );
      return basketView(deps, s, trackingUnitId, basketId);
    },
  );
};
