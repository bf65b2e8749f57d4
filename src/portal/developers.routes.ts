import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { createCheckoutClient, revokeCheckoutClient } from '../merchants/checkout-client.service.js';
import { listCheckoutClients } from '../merchants/checkout-client.store.js';
import { AppError } from '../shared/errors.js';
import {
  findWebhookDelivery,
  pageWebhookDeliveries,
  retryFailedWebhookDeliveries,
  retryWebhookDelivery,
} from '../webhooks/webhook-deliveries.js';
import { registerWebhook, unregisterWebhook } from '../webhooks/webhook-registration.js';
import { WEBHOOK_EVENTS, type WebhookEvent, listWebhooks } from '../webhooks/webhook.store.js';
import { answer, auth } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { type PageQuery, pageOf, pageRequest } from '../shared/paging.js';
import { sendEmpty } from '../wire/schemas.js';
import {
  CheckoutClientCredentialsSchema,
  CheckoutClientRequestSchema,
  CheckoutClientSchema,
} from '../wire/documents/checkout-client.schemas.js';
import { webhookDeliverySchema } from '../wire/documents/webhook-delivery.schemas.js';
import { OWNER_ONLY, portalErrors } from './schemas.js';
import { noStore, requireOwner, requireSession } from './session.js';
import type { Session } from '../portal-users/portal-auth.service.js';
import { type ViewDeps, viewDeps } from './views.js';

const TAG = 'Portal: developers';
const OWNERS = 'Only an owner manages checkout clients and webhooks and retries webhook deliveries.';
const CLIENT_UNKNOWN = "Checkout client unknown, or another merchant's (not_found).";
const DELIVERY_UNKNOWN = "Delivery unknown, or another merchant's (not_found).";

export const PortalWebhookSchema = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    event: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  {
    title: 'PortalWebhook',
    description: 'A webhook the checkout app registered; its signing secret is never shown here.',
  },
);

export const PortalWebhookDeliverySchema = webhookDeliverySchema('PortalWebhookDelivery');

const PortalWebhookRequestSchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'http(s) address that receives the events.',
    }),
    // An enum, not a union of literals: a union of the one event there is would be an illogical anyOf.
    event: Type.Unsafe<WebhookEvent>({
      type: 'string',
      enum: [...WEBHOOK_EVENTS],
      description: 'The event the webhook receives.',
    }),
  },
  { title: 'PortalWebhookRequest' },
);

const PortalWebhookCreatedSchema = Type.Object(
  {
    ...PortalWebhookSchema.properties,
    secret: Type.String({
      description: 'whsec_ + base64 key of the Standard Webhooks signature; answered this once only.',
    }),
  },
  { title: 'PortalWebhookCreated' },
);

const ClientParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const DeliveryParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

/**
 * Checkout clients, webhooks and webhook deliveries of the signed-in merchant
 * (docs/decisions.md, "Merchant portal: checkout clients and webhooks"): everyone reads, owners
 * create and revoke clients and retry deliveries.
 */

/** The merchant's checkout clients, a page at a time. */
export async function checkoutClientsView(deps: ViewDeps, s: Session, query: PageQuery) {
  const page = pageRequest('checkoutClients', query, ['number']);
  const rows = await listCheckoutClients(deps.db, s.merchantId, page);
  return pageOf(
    'checkoutClients',
    rows,
    page.limit,
    (c) => [c.id],
    (c) => c,
  );
}

/** The merchant's webhooks, as the checkout app registered them, a page at a time. */
export async function webhooksView(deps: ViewDeps, s: Session, query: PageQuery) {
  const page = pageRequest('webhooks', query, ['number', 'string']);
  const rows = await listWebhooks(deps.db, s.merchantId, page);
  return pageOf(
    'webhooks',
    rows,
    page.limit,
    (w) => [Date.parse(w.createdAt), w.id],
    (w) => ({ id: w.id, url: w.url, event: w.event, createdAt: w.createdAt }),
  );
}

/** Webhook deliveries with every attempt, newest first, a page at a time. */
export function deliveriesView(deps: ViewDeps, s: Session, query: PageQuery & { webhookId?: string }) {
  return pageWebhookDeliveries(deps.services.webhooks, s.merchantId, query);
}

export const portalDeveloperRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = viewDeps(app);

  app.get(
    '/checkoutClients',
    {
      schema: {
        tags: [TAG],
        summary: "The merchant's checkout clients (never their credentials)",
        operationId: 'listPortalCheckoutClients',
        security: auth.portal,
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer(
            'The clients, oldest first, a page at a time.',
            PageOf(CheckoutClientSchema, 'PortalCheckoutClientPage'),
          ),
          ...portalErrors(pageErrors),
        },
      },
    },
    async (request) => checkoutClientsView(deps, requireSession(request), request.query),
  );

  app.post(
    '/checkoutClients',
    {
      schema: {
        tags: [TAG],
        summary: 'Issue a checkout client to an ordering app (owners only)',
        operationId: 'createPortalCheckoutClient',
        description:
          'The access token and the security secret are answered this once and never shown again: the ' +
          'server keeps only the token’s hash.',
        security: auth.portalChange,
        body: CheckoutClientRequestSchema,
        response: {
          201: answer('The new client: hand both values to the app.', CheckoutClientCredentialsSchema),
          ...portalErrors({ 400: 'Body invalid (invalid_request).', 403: OWNER_ONLY }),
        },
      },
    },
    async (request, reply) => {
      const s = requireOwner(request, OWNERS);
      noStore(reply);
      const issued = await createCheckoutClient(app.services.merchants, s.merchantId, request.body.name);
      return reply.code(201).send(issued);
    },
  );

  app.post(
    '/checkoutClients/:id/revoke',
    {
      schema: {
        tags: [TAG],
        summary: 'Revoke a checkout client (owners only): its token answers 401 from the next call on',
        operationId: 'revokePortalCheckoutClient',
        security: auth.portalChange,
        params: ClientParams,
        response: {
          200: answer('The client, revoked.', CheckoutClientSchema),
          ...portalErrors({ 403: OWNER_ONLY, 404: CLIENT_UNKNOWN }),
        },
      },
    },
    async (request) => {
      const s = requireOwner(request, OWNERS);
      const revoked = await revokeCheckoutClient(app.services.merchants, s.merchantId, request.params.id);
      if (!revoked) throw new AppError('notFound', 'No checkout client under this id.');
      return revoked;
    },
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags: [TAG],
        summary: "The merchant's webhooks, as the checkout app registered them",
        operationId: 'listPortalWebhooks',
        security: auth.portal,
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer(
            'The live webhooks, oldest first, a page at a time.',
            PageOf(PortalWebhookSchema, 'PortalWebhookPage'),
          ),
          ...portalErrors(pageErrors),
        },
      },
    },
    async (request) => webhooksView(deps, requireSession(request), request.query),
  );

  app.post(
    '/webhooks',
    {
      schema: {
        tags: [TAG],
        summary: 'Register a webhook (owners only); its signing secret is answered this once',
        operationId: 'createPortalWebhook',
        description:
          "The checkout API's registration (same checks of the event and the target: http(s) only, no " +
          'private or loopback address). The secret is never shown again.',
        security: auth.portalChange,
        body: PortalWebhookRequestSchema,
        response: {
          201: answer('The webhook with its signing secret.', PortalWebhookCreatedSchema),
          ...portalErrors({
            400: 'Body invalid (invalid_request).',
            403: OWNER_ONLY,
            422: 'Target refused (webhook_url_refused), or event unknown (webhook_event_unknown).',
          }),
        },
      },
    },
    async (request, reply) => {
      const s = requireOwner(request, OWNERS);
      noStore(reply);
      const hook = await registerWebhook(app.services.webhooks, s.merchantId, request.body);
      return reply.code(201).send(hook);
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'Delete a webhook (owners only): no further deliveries',
        operationId: 'deletePortalWebhook',
        security: auth.portalChange,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          204: answer('Deleted.', Type.Null()),
          ...portalErrors({
            403: OWNER_ONLY,
            404: "Webhook unknown, or another merchant's (webhook_not_found).",
          }),
        },
      },
    },
    async (request, reply) => {
      const s = requireOwner(request, OWNERS);
      if (!(await unregisterWebhook(app.services.webhooks, s.merchantId, request.params.id))) {
        throw new AppError('webhookNotFound');
      }
      return sendEmpty(reply, 204);
    },
  );

  app.post(
    '/webhooks/:id/deliveries/retry',
    {
      schema: {
        tags: [TAG],
        summary:
          'Retry every failed or given-up delivery of a webhook now (owners only): its endpoint is back',
        operationId: 'retryPortalWebhookDeliveries',
        description:
          'Each delivery of the webhook that failed and waits for its next try, or was given up, becomes due at ' +
          'once: one more attempt each, with its own `webhook-id`, as "Retry now" does for one. Delivered ones ' +
          'and one under an attempt right now are left as they are.',
        security: auth.portalChange,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: answer(
            'How many deliveries were made due.',
            Type.Object({ retried: Type.Integer({ minimum: 0 }) }, { title: 'PortalWebhookRetried' }),
          ),
          ...portalErrors({
            403: OWNER_ONLY,
            404: "Webhook unknown, deleted, or another merchant's (webhook_not_found).",
          }),
        },
      },
    },
    async (request) => {
      const s = requireOwner(request, OWNERS);
      const id = request.params.id;
      const retried = await retryFailedWebhookDeliveries(app.services.webhooks, s.merchantId, id);
      if (retried === null) throw new AppError('webhookNotFound');
      if (retried > 0) app.services.outbox.dispatcher.nudge();
      return { retried };
    },
  );

  app.get(
    '/webhookDeliveries',
    {
      schema: {
        tags: [TAG],
        summary: 'Webhook deliveries with every attempt, newest first, a page at a time',
        operationId: 'listPortalWebhookDeliveries',
        security: auth.portal,
        querystring: Type.Object({
          webhookId: Type.Optional(
            Type.String({ minLength: 1, maxLength: 100, description: 'Only this webhook’s.' }),
          ),
          ...pageQueryFields,
        }),
        response: {
          200: answer(
            'A page of deliveries.',
            PageOf(PortalWebhookDeliverySchema, 'PortalWebhookDeliveryPage'),
          ),
          ...portalErrors(pageErrors),
        },
      },
    },
    async (request) => deliveriesView(deps, requireSession(request), request.query),
  );

  app.post(
    '/webhookDeliveries/:id/retry',
    {
      schema: {
        tags: [TAG],
        summary: 'Retry a failed or given-up delivery now (owners only)',
        operationId: 'retryPortalWebhookDelivery',
        description:
          'The delivery becomes pending and due at once: one more attempt, with the same `webhook-id`. A ' +
          'given-up delivery whose retry fails is given up again.',
        security: auth.portalChange,
        params: DeliveryParams,
        response: {
          200: answer(
            'The delivery after the retry was asked for: pending and due, or already attempted again.',
            PortalWebhookDeliverySchema,
          ),
          ...portalErrors({
            403: OWNER_ONLY,
            404: DELIVERY_UNKNOWN,
            409: 'Delivered already, or an attempt is under way right now (delivery_not_retriable).',
          }),
        },
      },
    },
    async (request) => {
      const s = requireOwner(request, OWNERS);
      const id = request.params.id;
      const outcome = await retryWebhookDelivery(app.services.webhooks, s.merchantId, id);
      if (outcome === 'unknown') throw new AppError('notFound', 'No webhook delivery under this id.');
      if (outcome === 'delivered') throw new AppError('portalDeliveryNotRetriable', 'It was delivered.');
      if (outcome === 'in_flight')
        throw new AppError(
          'portalDeliveryNotRetriable',
          'An attempt is under way; reload to see its outcome.',
        );
      app.services.outbox.dispatcher.nudge();
      const after = await findWebhookDelivery(app.services.webhooks, s.merchantId, id);
      if (!after) throw new AppError('notFound', 'No webhook delivery under this id.');
      return after;
    },
  );
};
