import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { createBrand, createMerchant, findMerchantByName } from '../merchants/merchant.store.js';
import { listTerminals } from '../merchants/terminal.store.js';
import { AppError } from '../shared/errors.js';
import { isKnownCurrency } from '../shared/money.js';
import { isValidTimeZone } from '../shared/time.js';
import { createdRange, pageOf, pageRequest } from '../shared/paging.js';
import { PageOf, createdQueryFields, pageErrors, pageQueryFields } from '../wire/paging.js';
import { answer } from '../wire/openapi.js';
import { issueDevKey, listDevKeys, merchantSecurity, revokeDevKey } from '../merchants/terminal.service.js';
import { apiErrors } from '../wire/schemas.js';
import { listTransfers } from '../ledger/ledger.store.js';
import { DevKeySchema, MerchantSecuritySchema, TransferSchema, UnitSchema } from './merchants.schemas.js';

const auth = { 401: 'Authorization missing or wrong (unauthorized).' };

export const adminMerchantRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;
  const { merchants } = app.services;

  async function merchantId(serviceUserName: string): Promise<number> {
    const merchant = await findMerchantByName(db, serviceUserName);
    if (!merchant) throw new AppError('notFound', `No merchant "${serviceUserName}".`);
    return merchant.id;
  }

  app.post(
    '/devKeys',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Issue a developer key (DevKey) to a POS vendor',
        operationId: 'createDevKey',
        description:
          'The key is answered this once: only its SHA-256 is stored, so it cannot be shown again. `id` names ' +
          'the key for listing and revocation.',
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          201: answer(
            'The new DevKey: hand it to the POS vendor.',
            Type.Object(
              { devKey: Type.String(), name: Type.String(), id: Type.Integer() },
              { title: 'DevKey' },
            ),
          ),
          ...apiErrors({ 400: 'Body invalid (invalid_request).', ...auth }),
        },
      },
    },
    async (request, reply) => {
      const issued = await issueDevKey(merchants, request.body.name);
      return reply.code(201).send({ devKey: issued.devKey, name: issued.name, id: issued.id });
    },
  );

  app.get(
    '/devKeys',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'List the DevKeys (never the keys themselves)',
        operationId: 'listDevKeys',
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer(
            'The DevKeys issued, with their vendor names and revocation, oldest first, a page at a time.',
            PageOf(DevKeySchema, 'DevKeyPage'),
          ),
          ...apiErrors({ ...pageErrors, ...auth }),
        },
      },
    },
    async (request) => {
      const page = pageRequest('devKeys', request.query, ['number']);
      return pageOf(
        'devKeys',
        await listDevKeys(merchants, page),
        page.limit,
        (k) => [k.id],
        (k) => k,
      );
    },
  );

  app.post(
    '/devKeys/:id/revoke',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Revoke a DevKey: every terminal registered with it stops at once',
        operationId: 'revokeDevKey',
        description:
          'Final. From the next request on, on every instance, the key and its terminals answer 401 / 1043. ' +
          'Revoking a revoked key answers it again.',
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        response: {
          200: answer('The DevKey, revoked.', DevKeySchema),
          ...apiErrors({ 400: 'id invalid (invalid_request).', 404: 'DevKey unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => revokeDevKey(merchants, request.params.id),
  );

  app.get(
    '/merchants/:serviceUserName/settings',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: "A merchant's security settings",
        operationId: 'getMerchantSettings',
        params: Type.Object({ serviceUserName: Type.String() }),
        response: {
          200: answer("The merchant's security settings.", MerchantSecuritySchema),
          ...apiErrors({ 404: 'Merchant unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => merchantSecurity(merchants, request.params.serviceUserName),
  );

  app.patch(
    '/merchants/:serviceUserName/settings',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: "Change a merchant's security settings",
        operationId: 'updateMerchantSettings',
        description: 'Fields left out stay as they are. Takes effect on the next request of every terminal.',
        params: Type.Object({ serviceUserName: Type.String() }),
        body: Type.Object(
          { requireTransactionId: Type.Optional(Type.Boolean()) },
          { title: 'MerchantSettingsChange' },
        ),
        response: {
          200: answer("The merchant's security settings after the change.", MerchantSecuritySchema),
          ...apiErrors({
            400: 'Body invalid (invalid_request).',
            404: 'Merchant unknown (not_found).',
            ...auth,
          }),
        },
      },
    },
    async (request) => merchantSecurity(merchants, request.params.serviceUserName, request.body),
  );

  app.post(
    '/merchants',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Create a merchant',
        operationId: 'createMerchant',
        body: Type.Object({
          serviceUserName: Type.String({
            minLength: 1,
            maxLength: 200,
            description: 'Unique; may hold non-ASCII.',
          }),
          displayName: Type.String({ minLength: 1, maxLength: 200 }),
          currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', default: 'EUR' })),
          timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, default: 'Europe/Berlin' })),
        }),
        response: {
          201: answer(
            'The new merchant.',
            Type.Object({ serviceUserName: Type.String() }, { title: 'Merchant' }),
          ),
          ...apiErrors({
            400: 'Body invalid, unknown time zone or currency (invalid_request).',
            409: 'A merchant with this user name exists (conflict).',
            ...auth,
          }),
        },
      },
    },
    async (request, reply) => {
      const { serviceUserName, displayName } = request.body;
      const currency = request.body.currency ?? 'EUR';
      const timeZone = request.body.timeZone ?? 'Europe/Berlin';
      if (!isValidTimeZone(timeZone)) throw new AppError('refused', `Unknown time zone "${timeZone}".`);
      // A merchant's currency fixes the exponent of every amount it will ever hold.
      if (!isKnownCurrency(currency)) throw new AppError('refused', `Unknown currency "${currency}".`);
      if (!(await createMerchant(db, { serviceUserName, displayName, currency, timeZone }))) {
        throw new AppError('conflict', `Merchant "${serviceUserName}" exists.`);
      }
      return reply.code(201).send({ serviceUserName });
    },
  );

  app.post(
    '/merchants/:serviceUserName/brands',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Create a brand of a merchant',
        operationId: 'createBrand',
        params: Type.Object({ serviceUserName: Type.String() }),
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          201: answer(
            'The new brand.',
            Type.Object({ brandId: Type.Integer(), brandName: Type.String() }, { title: 'Brand' }),
          ),
          ...apiErrors({
            400: 'Body invalid (invalid_request).',
            404: 'Merchant unknown (not_found).',
            ...auth,
          }),
        },
      },
    },
    async (request, reply) => {
      const merchant = await merchantId(request.params.serviceUserName);
      const brand = await createBrand(db, merchant, request.body.name);
      return reply.code(201).send({ brandId: brand.id, brandName: brand.name });
    },
  );

  app.get(
    '/merchants/:serviceUserName/trackingUnits',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary:
          "List a merchant's terminals with their activation and the DevKey (vendor) that registered each",
        operationId: 'listTrackingUnits',
        params: Type.Object({ serviceUserName: Type.String() }),
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer(
            "The merchant's terminals, oldest first, a page at a time.",
            PageOf(UnitSchema, 'TrackingUnitPage'),
          ),
          ...apiErrors({ ...pageErrors, 404: 'Merchant unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => {
      const page = pageRequest('trackingUnits', request.query, ['number', 'string']);
      const merchant = await merchantId(request.params.serviceUserName);
      const rows = await listTerminals(db, merchant, page);
      return pageOf(
        'trackingUnits',
        rows,
        page.limit,
        (u) => [Date.parse(u.createdAt), u.trackingUnitId],
        (u) => u,
      );
    },
  );

  app.get(
    '/merchants/:serviceUserName/transfers',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: "A merchant's balance bookings, newest first, with what authorised each",
        operationId: 'listTransfers',
        params: Type.Object({ serviceUserName: Type.String() }),
        querystring: Type.Object({
          tokenId: Type.Optional(
            Type.String({ minLength: 1, maxLength: 200, description: 'Only this card.' }),
          ),
          ...pageQueryFields,
          ...createdQueryFields,
        }),
        response: {
          200: answer(
            'The bookings, newest first, a page at a time.',
            PageOf(TransferSchema, 'TransferPage'),
          ),
          ...apiErrors({
            ...pageErrors,
            404: 'Merchant unknown (not_found).',
            ...auth,
          }),
        },
      },
    },
    async (request) => {
      const merchant = await merchantId(request.params.serviceUserName);
      const page = pageRequest('transfers', request.query, ['number']);
      const rows = await listTransfers(db, merchant, {
        tokenId: request.query.tokenId,
        range: createdRange(request.query),
        page,
      });
      return pageOf(
        'transfers',
        rows,
        page.limit,
        (t) => [t.id],
        ({ id: _id, ...t }) => t,
      );
    },
  );
};
