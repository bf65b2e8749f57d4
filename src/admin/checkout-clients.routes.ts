import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { createCheckoutClient, revokeCheckoutClient } from '../merchants/checkout-client.service.js';
import { listCheckoutClients } from '../merchants/checkout-client.store.js';
import { findMerchantByName } from '../merchants/merchant.store.js';
import { AppError } from '../shared/errors.js';
import { pageOf, pageRequest } from '../shared/paging.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { answer } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';
import {
  CheckoutClientCredentialsSchema,
  CheckoutClientRequestSchema,
  CheckoutClientSchema,
} from '../wire/documents/checkout-client.schemas.js';

const auth = { 401: 'Authorization missing or wrong (unauthorized).' };

const MerchantParams = Type.Object({ serviceUserName: Type.String({ minLength: 1, maxLength: 200 }) });

/** Checkout clients of a merchant: the credentials of ordering apps and web shops (checkout v1). */
export const adminCheckoutClientRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const { db } = ctx.database;

  const merchantOf = async (serviceUserName: string) => {
    const merchant = await findMerchantByName(db, serviceUserName);
    if (!merchant) throw new AppError('notFound', `No merchant "${serviceUserName}".`);
    return merchant;
  };

  app.post(
    '/merchants/:serviceUserName/checkoutClients',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Issue a checkout client (access token and security secret) to an ordering app',
        operationId: 'createCheckoutClient',
        description:
          'Both values are answered this once. The app sends `Authorization: Token <accessToken>` on every ' +
          'checkout call and signs orders with the securitySecret (Security-Token).',
        params: MerchantParams,
        body: CheckoutClientRequestSchema,
        response: {
          201: answer('The new client: hand both values to the app.', CheckoutClientCredentialsSchema),
          ...apiErrors({
            400: 'Body invalid (invalid_request).',
            404: 'Merchant unknown (not_found).',
            ...auth,
          }),
        },
      },
    },
    async (request, reply) => {
      const merchant = await merchantOf(request.params.serviceUserName);
      const issued = await createCheckoutClient(app.services.merchants, merchant.id, request.body.name);
      return reply.code(201).send(issued);
    },
  );

  app.get(
    '/merchants/:serviceUserName/checkoutClients',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'List the checkout clients of a merchant (never their credentials)',
        operationId: 'listCheckoutClients',
        params: MerchantParams,
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer(
            'The clients of the merchant, oldest first, a page at a time.',
            PageOf(CheckoutClientSchema, 'CheckoutClientPage'),
          ),
          ...apiErrors({ ...pageErrors, 404: 'Merchant unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => {
      const page = pageRequest('checkoutClients', request.query, ['number']);
      const merchant = await merchantOf(request.params.serviceUserName);
      const rows = await listCheckoutClients(db, merchant.id, page);
      return pageOf(
        'checkoutClients',
        rows,
        page.limit,
        (c) => [c.id],
        (c) => c,
      );
    },
  );

  app.post(
    '/merchants/:serviceUserName/checkoutClients/:id/revoke',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Revoke a checkout client: its token answers 401 from the next call on',
        operationId: 'revokeCheckoutClient',
        params: Type.Object({
          serviceUserName: Type.String({ minLength: 1, maxLength: 200 }),
          id: Type.Integer({ minimum: 1 }),
        }),
        response: {
          200: answer('The client, revoked.', CheckoutClientSchema),
          ...apiErrors({ 404: 'Merchant or client unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => {
      const merchant = await merchantOf(request.params.serviceUserName);
      const revoked = await revokeCheckoutClient(app.services.merchants, merchant.id, request.params.id);
      if (!revoked) throw new AppError('notFound', 'No checkout client under this id.');
      return revoked;
    },
  );
};
