import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { listOrders, listTransactions } from '../orders/order-read.js';
import { AppError } from '../shared/errors.js';
import {
  findWebhookDelivery,
  pageWebhookDeliveries,
  retryWebhookDelivery,
} from '../webhooks/webhook-deliveries.js';
import { webhookDeliverySchema } from '../wire/documents/webhook-delivery.schemas.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { answer } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';
import { checkoutCaller } from './checkout-auth.js';
import { checkoutAuth } from './checkout-openapi.js';
import { ListQuery, OrderPage, ProfileParams, TransactionPage } from './checkout.schemas.js';

const unauthorized = { 401: 'Authorization missing or unknown (unauthorized).' };
const noProfile = { 404: 'No profile under this card id or one-time password (profile_not_found).' };
const paging =
  'Newest first, a page at a time (docs/decisions.md, "Paging"): `limit` and `cursor` in, ' +
  '`{data, hasMore, nextCursor}` out; `createdFrom` (inclusive) and `createdTo` (exclusive) filter by ' +
  'creation time.';

const WebhookDelivery = webhookDeliverySchema('WebhookDelivery');
const deliveryUnknown = { 404: 'No delivery of the merchant under this id (not_found).' };

/**
 * A profile's orders and balance transactions, listed; the merchant's webhook deliveries, listed
 * and redelivered (docs/decisions.md, "Reading back, lists and partial refunds").
 */
export const checkoutListRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = app.services.checkout;

  app.get(
    '/profiles/:reference/orders',
    {
      schema: {
        tags: ['Checkout'],
        summary: "List a profile's orders, each as read back",
        operationId: 'listProfileOrders',
        description: `${paging} Reading by a one-time password does not spend it.`,
        security: checkoutAuth.token,
        params: ProfileParams,
        querystring: ListQuery,
        response: {
          200: answer('A page of orders.', OrderPage),
          ...apiErrors({ ...pageErrors, ...unauthorized, ...noProfile }),
        },
      },
    },
    async (request) => listOrders(deps, checkoutCaller(request), request.params.reference, request.query),
  );

  app.get(
    '/profiles/:reference/transactions',
    {
      schema: {
        tags: ['Checkout'],
        summary: "List a profile's balance transactions: top-ups, charges, refunds, reservations",
        operationId: 'listProfileTransactions',
        description: `${paging} Each with its status now, as its webhook events report it.`,
        security: checkoutAuth.token,
        params: ProfileParams,
        querystring: ListQuery,
        response: {
          200: answer('A page of balance transactions.', TransactionPage),
          ...apiErrors({ ...pageErrors, ...unauthorized, ...noProfile }),
        },
      },
    },
    async (request) =>
      listTransactions(deps, checkoutCaller(request), request.params.reference, request.query),
  );

  app.get(
    '/webhookDeliveries',
    {
      schema: {
        tags: ['Checkout'],
        summary: "List the merchant's webhook deliveries with every attempt",
        operationId: 'listWebhookDeliveries',
        description: `Newest first, a page at a time (docs/decisions.md, "Paging"); \`webhookId\` keeps one webhook's.`,
        security: checkoutAuth.token,
        querystring: Type.Object({
          ...pageQueryFields,
          webhookId: Type.Optional(
            Type.String({ minLength: 1, maxLength: 100, description: 'Only this webhook’s.' }),
          ),
        }),
        response: {
          200: answer('A page of deliveries.', PageOf(WebhookDelivery, 'WebhookDeliveryPage')),
          ...apiErrors({ ...pageErrors, ...unauthorized }),
        },
      },
    },
    async (request) =>
      pageWebhookDeliveries(app.services.webhooks, checkoutCaller(request).merchantId, request.query),
  );

  app.post(
    '/webhookDeliveries/:id/redeliver',
    {
      schema: {
        tags: ['Checkout'],
        summary: 'Redeliver a failed or given-up webhook delivery now',
        operationId: 'redeliverWebhookDelivery',
        description:
          'The delivery becomes pending and due at once: one more attempt, with the same `webhook-id`. A ' +
          'given-up delivery whose attempt fails is given up again.',
        security: checkoutAuth.token,
        params: Type.Object({ id: Type.Integer({ minimum: 1, description: 'The delivery’s id.' }) }),
        response: {
          200: answer('The delivery: pending and due, or already attempted again.', WebhookDelivery),
          ...apiErrors({
            ...unauthorized,
            ...deliveryUnknown,
            409: 'Delivered already, or an attempt is under way right now (delivery_not_retriable).',
          }),
        },
      },
    },
    async (request) => {
      const merchantId = checkoutCaller(request).merchantId;
      const id = request.params.id;
      const outcome = await retryWebhookDelivery(app.services.webhooks, merchantId, id);
      if (outcome === 'unknown') throw new AppError('notFound', 'No webhook delivery under this id.');
      if (outcome === 'delivered') throw new AppError('portalDeliveryNotRetriable', 'It was delivered.');
      if (outcome === 'in_flight')
        throw new AppError('portalDeliveryNotRetriable', 'An attempt is under way.');
      app.services.outbox.dispatcher.nudge();
      const after = await findWebhookDelivery(app.services.webhooks, merchantId, id);
      if (!after) throw new AppError('notFound', 'No webhook delivery under this id.');
      return after;
    },
  );
};
