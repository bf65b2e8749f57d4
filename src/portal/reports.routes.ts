import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { basketDetail, searchBaskets } from '../reports/basket-search.store.js';
import { AppError } from '../shared/errors.js';
import { answer, auth } from '../wire/openapi.js';
import { receiptUrlOf } from './receipt-link.js';
import { BasketDetailSchema, BasketListingSchema, portalErrors } from './schemas.js';
import { requireSession } from './session.js';

const TAG = 'Portal: reports';

export const portalReportRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  app.get(
    '/baskets',
    {
      schema: {
        tags: [TAG],
        summary: 'Search baskets by time, outlet, terminal and card, newest first',
        operationId: 'searchPortalBaskets',
        security: auth.portal,
        querystring: Type.Object({
          from: Type.Optional(Type.String({ format: 'date-time', description: 'Basket time at or after.' })),
          to: Type.Optional(Type.String({ format: 'date-time', description: 'Basket time before.' })),
          outletId: Type.Optional(Type.Integer({ minimum: 1 })),
          trackingUnitId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          card: Type.Optional(
            Type.String({ minLength: 1, maxLength: 200, description: 'Customer card or gift card id.' }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
        }),
        response: {
          200: answer('The baskets found, newest first.', Type.Array(BasketListingSchema)),
          ...portalErrors({ 400: 'Query invalid (invalid_request).' }),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const q = request.query;
      const time = (t: string | undefined) => (t === undefined ? null : Date.parse(t));
      return searchBaskets(db, {
        merchantId: s.merchantId,
        fromMs: time(q.from),
        toMs: time(q.to),
        outletId: q.outletId ?? null,
        trackingUnitId: q.trackingUnitId ?? null,
        card: q.card ?? null,
        limit: q.limit ?? 100,
      });
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
        params: Type.Object({
          trackingUnitId: Type.String({ maxLength: 100 }),
          basketId: Type.String({ maxLength: 200 }),
        }),
        response: {
          200: answer('The basket.', BasketDetailSchema),
          ...portalErrors({ 404: "Basket unknown, or another merchant's (not_found)." }),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const { trackingUnitId, basketId } = request.params;
      const b = await basketDetail(db, s.merchantId, trackingUnitId, basketId);
      if (!b) throw new AppError('notFound', 'No basket under this id.');
      return { ...b, receiptUrl: await receiptUrlOf(db, s.merchantId, trackingUnitId, basketId) };
    },
  );
};
