import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { basketDetail, searchBaskets } from '../reports/basket-search.store.js';
import { AppError } from '../shared/errors.js';
import { type PageKey, pageOf, pageRequest } from '../shared/paging.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { answer, auth } from '../wire/openapi.js';
import { receiptUrlOf } from './receipt-link.js';
import { BasketDetailSchema, BasketListingSchema, portalErrors } from './schemas.js';
import { requireSession } from './session.js';

const TAG = 'Portal: reports';
/** The cursor's list name: a cursor of another list is refused. */
const LIST = 'portalBaskets';

/** The basket's key in a cursor: its time (ms), terminal and basket id; else 400 invalid_cursor. */
function cursorKey(key: PageKey | null): [number, string, string] | null {
  if (key === null) return null;
  const [atMs, unit, basket] = key;
  if (typeof atMs === 'number' && typeof unit === 'string' && typeof basket === 'string')
    return [atMs, unit, basket];
  throw new AppError('invalidCursor', 'Pass the nextCursor of the previous page of this list as it is.');
}

export const portalReportRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  app.get(
    '/baskets',
    {
      schema: {
        tags: [TAG],
        summary: 'Search baskets by bill number or basket id, time, outlet, terminal, card and state',
        operationId: 'searchPortalBaskets',
        description: 'Newest first, a page at a time (docs/decisions.md, "Paging").',
        security: auth.portal,
        querystring: Type.Object({
          from: Type.Optional(Type.String({ format: 'date-time', description: 'Basket time at or after.' })),
          to: Type.Optional(Type.String({ format: 'date-time', description: 'Basket time before.' })),
          outletId: Type.Optional(Type.Integer({ minimum: 1 })),
          trackingUnitId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          card: Type.Optional(
            Type.String({ minLength: 1, maxLength: 200, description: 'Customer card or gift card id.' }),
          ),
          number: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 200,
              description: 'A bill number or a basket id, exactly as the till sent it.',
            }),
          ),
          state: Type.Optional(
            Type.Union([Type.Literal('open'), Type.Literal('granted'), Type.Literal('returned')], {
              description:
                'open: uploaded, not granted; granted: nothing returned; returned: a return booked.',
            }),
          ),
          ...pageQueryFields,
        }),
        response: {
          200: answer(
            'A page of the baskets found, newest first.',
            PageOf(BasketListingSchema, 'PortalBasketPage'),
          ),
          ...portalErrors(pageErrors),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const q = request.query;
      const time = (t: string | undefined) => (t === undefined ? null : Date.parse(t));
      const page = pageRequest(LIST, q, 3);
      const after = cursorKey(page.after);
      const rows = await searchBaskets(db, {
        merchantId: s.merchantId,
        fromMs: time(q.from),
        toMs: time(q.to),
        outletId: q.outletId ?? null,
        trackingUnitId: q.trackingUnitId ?? null,
        card: q.card ?? null,
        number: q.number?.trim() || null,
        state: q.state ?? null,
        limit: page.limit,
        after,
      });
      return pageOf(
        LIST,
        rows,
        page.limit,
        (b) => [Date.parse(b.timestamp), b.trackingUnitId, b.basketId],
        (b) => b,
      );
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
