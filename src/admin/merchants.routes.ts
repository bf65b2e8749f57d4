import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  activateTerminal,
  createBrand,
  createMerchant,
  findMerchantByName,
  issueDevKey,
  listTerminals,
} from '../merchants/merchant.store.js';
import { AppError } from '../shared/errors.js';
import { isKnownCurrency } from '../shared/money.js';
import { isValidTimeZone } from '../shared/time.js';
import { apiErrors } from '../wire/schemas.js';

const auth = { 401: 'Authorization missing or wrong (unauthorized).' };

const UnitSchema = Type.Object({
  trackingUnitId: Type.String(),
  instanceName: Type.String(),
  outletId: Type.Integer(),
  sortimentId: Type.Union([Type.Integer(), Type.Null()]),
  activated: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const adminMerchantRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  async function merchantId(serviceUserName: string): Promise<number> {
    const merchant = await findMerchantByName(db, serviceUserName);
    if (!merchant) throw new AppError('notFound', `No merchant "${serviceUserName}".`);
    return merchant.id;
  }

  app.post(
    '/devKeys',
    {
      schema: {
        tags: ['Operator'],
        summary: 'Issue a developer key (DevKey) to a POS vendor',
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          201: Type.Object({ devKey: Type.String(), name: Type.String() }),
          ...apiErrors({ 400: 'Body invalid (invalid_request).', ...auth }),
        },
      },
    },
    async (request, reply) => {
      const devKey = randomBytes(24).toString('base64url');
      await issueDevKey(db, devKey, request.body.name);
      return reply.code(201).send({ devKey, name: request.body.name });
    },
  );

  app.post(
    '/merchants',
    {
      schema: {
        tags: ['Operator'],
        summary: 'Create a merchant',
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
          201: Type.Object({ serviceUserName: Type.String() }),
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
      if (!isValidTimeZone(timeZone)) throw new AppError('invalidBody', `Unknown time zone "${timeZone}".`);
      // A merchant's currency fixes the exponent of every amount it will ever hold.
      if (!isKnownCurrency(currency)) throw new AppError('invalidBody', `Unknown currency "${currency}".`);
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
        tags: ['Operator'],
        summary: 'Create a brand of a merchant',
        params: Type.Object({ serviceUserName: Type.String() }),
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          201: Type.Object({ brandId: Type.Integer(), brandName: Type.String() }),
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
        tags: ['Operator'],
        summary: "List a merchant's terminals with their activation",
        params: Type.Object({ serviceUserName: Type.String() }),
        response: {
          200: Type.Array(UnitSchema),
          ...apiErrors({ 404: 'Merchant unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => {
      const merchant = await merchantId(request.params.serviceUserName);
      return listTerminals(db, merchant);
    },
  );

  app.post(
    '/trackingUnits/:trackingUnitId/activate',
    {
      schema: {
        tags: ['Operator'],
        summary: 'Activate a terminal so that it may upload baskets and maintain sortiments',
        params: Type.Object({ trackingUnitId: Type.String() }),
        response: {
          200: Type.Object({ trackingUnitId: Type.String(), activated: Type.Boolean() }),
          ...apiErrors({ 404: 'Terminal unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => {
      const unitId = request.params.trackingUnitId;
      if (!(await activateTerminal(db, unitId, app.ctx.clock.nowMs()))) {
        throw new AppError('notFound', 'No terminal under this id.');
      }
      return { trackingUnitId: unitId, activated: true };
    },
  );
};
