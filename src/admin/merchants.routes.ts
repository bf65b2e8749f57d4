import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../shared/errors.js';
import { isKnownCurrency } from '../shared/money.js';
import { isValidTimeZone } from '../shared/time.js';
import { answer } from '../wire/openapi.js';
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

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}

export const adminMerchantRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  async function merchantId(serviceUserName: string): Promise<number> {
    const row = await db
      .selectFrom('merchants')
      .select('id')
      .where('service_user_name', '=', serviceUserName)
      .executeTakeFirst();
    if (!row) throw new AppError('notFound', `No merchant "${serviceUserName}".`);
    return row.id;
  }

  app.post(
    '/devKeys',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Issue a developer key (DevKey) to a POS vendor',
        operationId: 'createDevKey',
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          201: answer(
            'The new DevKey: hand it to the POS vendor.',
            Type.Object({ devKey: Type.String(), name: Type.String() }, { title: 'DevKey' }),
          ),
          ...apiErrors({ 400: 'Body invalid (invalid_request).', ...auth }),
        },
      },
    },
    async (request, reply) => {
      const devKey = randomBytes(24).toString('base64url');
      await db.insertInto('dev_keys').values({ dev_key: devKey, name: request.body.name }).execute();
      return reply.code(201).send({ devKey, name: request.body.name });
    },
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
      if (!isValidTimeZone(timeZone)) throw new AppError('invalidBody', `Unknown time zone "${timeZone}".`);
      // A merchant's currency fixes the exponent of every amount it will ever hold.
      if (!isKnownCurrency(currency)) throw new AppError('invalidBody', `Unknown currency "${currency}".`);
      try {
        await db
          .insertInto('merchants')
          .values({
            service_user_name: serviceUserName,
            display_name: displayName,
            currency,
            time_zone: timeZone,
          })
          .execute();
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('conflict', `Merchant "${serviceUserName}" exists.`);
        throw err;
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
      const brand = await db
        .insertInto('brands')
        .values({ merchant_id: merchant, name: request.body.name })
        .returning(['id', 'name'])
        .executeTakeFirstOrThrow();
      return reply.code(201).send({ brandId: brand.id, brandName: brand.name });
    },
  );

  app.get(
    '/merchants/:serviceUserName/trackingUnits',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: "List a merchant's terminals with their activation",
        operationId: 'listTrackingUnits',
        params: Type.Object({ serviceUserName: Type.String() }),
        response: {
          200: answer("The merchant's terminals.", Type.Array(UnitSchema)),
          ...apiErrors({ 404: 'Merchant unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => {
      const merchant = await merchantId(request.params.serviceUserName);
      const rows = await db
        .selectFrom('tracking_units')
        .select(['id', 'instance_name', 'outlet_id', 'sortiment_id', 'activated', 'created_at'])
        .where('merchant_id', '=', merchant)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((r) => ({
        trackingUnitId: r.id,
        instanceName: r.instance_name,
        outletId: r.outlet_id,
        sortimentId: r.sortiment_id,
        activated: r.activated,
        createdAt: r.created_at.toISOString(),
      }));
    },
  );

  app.post(
    '/trackingUnits/:trackingUnitId/activate',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Activate a terminal so that it may upload baskets and maintain sortiments',
        operationId: 'activateTrackingUnit',
        params: Type.Object({ trackingUnitId: Type.String() }),
        response: {
          200: answer(
            'The terminal is active.',
            Type.Object(
              { trackingUnitId: Type.String(), activated: Type.Boolean() },
              { title: 'Activation' },
            ),
          ),
          ...apiErrors({ 404: 'Terminal unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => {
      const now = new Date(app.ctx.clock.nowMs());
      const row = await db
        .updateTable('tracking_units')
        .set((eb) => ({
          activated: true,
          activated_at: eb.fn.coalesce('activated_at', eb.val(now)),
          updated_at: now,
        }))
        .where('id', '=', request.params.trackingUnitId)
        .returning('id')
        .executeTakeFirst();
      if (!row) throw new AppError('notFound', 'No terminal under this id.');
      return { trackingUnitId: row.id, activated: true };
    },
  );
};
