import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../shared/errors.js';
import { registerWebhook, unregisterWebhook } from '../webhooks/webhook-registration.js';
import { findWebhook, listWebhooks } from '../webhooks/webhook.store.js';
import { pageOf, pageRequest } from '../shared/paging.js';
import { answer } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { apiErrors, sendEmpty } from '../wire/schemas.js';
import { checkoutCaller } from './checkout-auth.js';
import { checkoutAuth, keyErrors, keyedAnswer, keyedDescription } from './checkout-openapi.js';
import { sendKeyed } from './keyed-route.js';
import { WebhookAnswer, WebhookRequest } from './checkout.schemas.js';

const unauthorized = { 401: 'Authorization missing or unknown (unauthorized).' };
const notFound = { 404: 'No webhook of the merchant under this id (webhook_not_found).' };
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/**
 * Webhook registration, served under /api/v1/webhooks and, as the seed names it, /webhooks; the
 * second set of operations carries `AtRoot` in its operationIds.
 */
export function webhookRoutes(suffix: '' | 'AtRoot'): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const { ctx } = app;
    const { db } = ctx.database;

    app.post(
      '/webhooks',
      {
        schema: {
          tags: ['Checkout'],
          summary: 'Register a webhook for transaction.status.changed',
          operationId: `createWebhook${suffix}`,
          description:
            'Deliveries follow Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature ' +
            '`v1,<base64 HMAC-SHA256>` keyed with the bytes of the secret after `whsec_`), at least once, ' +
            'retried with exponential back-off for about three days. http(s) only; private and loopback ' +
            'addresses are refused.' +
            keyedDescription,
          security: checkoutAuth.token,
          body: WebhookRequest,
          response: {
            201: keyedAnswer('The webhook with its signing secret.', WebhookAnswer),
            ...apiErrors({
              ...unauthorized,
              400: `Body invalid (invalid_request); ${keyErrors[400]}.`,
              409: `${keyErrors[409]}.`,
              422: `webhook_event_unknown, webhook_url_refused; ${keyErrors[422]}.`,
            }),
          },
        },
      },
      async (request, reply) => {
        const caller = checkoutCaller(request);
        const deps = app.services.webhooks;
        return sendKeyed(request, reply, deps, 201, (keep) =>
          registerWebhook(deps, caller.merchantId, request.body, keep),
        );
      },
    );

    app.get(
      '/webhooks',
      {
        schema: {
          tags: ['Checkout'],
          summary: 'List the webhooks of the merchant',
          operationId: `listWebhooks${suffix}`,
          description: 'Oldest first, a page at a time (docs/decisions.md, "Paging").',
          security: checkoutAuth.token,
          querystring: Type.Object(pageQueryFields),
          response: {
            200: answer('A page of the live webhooks.', PageOf(WebhookAnswer, 'WebhookPage')),
            ...apiErrors({ ...pageErrors, ...unauthorized }),
          },
        },
      },
      async (request) => {
        const page = pageRequest('webhooks', request.query, ['number', 'string']);
        const rows = await listWebhooks(db, checkoutCaller(request).merchantId, page);
        return pageOf(
          'webhooks',
          rows,
          page.limit,
          (w) => [Date.parse(w.createdAt), w.id],
          (w) => w,
        );
      },
    );

    app.get(
      '/webhooks/:id',
      {
        schema: {
          tags: ['Checkout'],
          summary: 'Read a webhook',
          operationId: `readWebhook${suffix}`,
          security: checkoutAuth.token,
          params: IdParams,
          response: {
            200: answer('The webhook.', WebhookAnswer),
            ...apiErrors({ ...unauthorized, ...notFound }),
          },
        },
      },
      async (request) => {
        const hook = await findWebhook(db, checkoutCaller(request).merchantId, request.params.id);
        if (!hook) throw new AppError('webhookNotFound');
        return hook;
      },
    );

    app.delete(
      '/webhooks/:id',
      {
        schema: {
          tags: ['Checkout'],
          summary: 'Delete a webhook: no further deliveries',
          operationId: `deleteWebhook${suffix}`,
          security: checkoutAuth.token,
          params: IdParams,
          response: {
            204: answer('Deleted.', Type.Null()),
            ...apiErrors({ ...unauthorized, ...notFound }),
          },
        },
      },
      async (request, reply) => {
        const ok = await unregisterWebhook(
          app.services.webhooks,
          checkoutCaller(request).merchantId,
          request.params.id,
        );
        if (!ok) throw new AppError('webhookNotFound');
        return sendEmpty(reply, 204);
      },
    );
  };
}
