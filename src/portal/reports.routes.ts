import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { PageOf, pageErrors } from '../wire/paging.js';
import { answer, auth } from '../wire/openapi.js';
import { BasketQuery, basketSearchView, basketView } from './basket-views.js';
import { BasketDetailSchema, BasketListingSchema, portalErrors } from './schemas.js';
import { requireSession } from './session.js';
import { viewDeps } from './views.js';

const TAG = 'Portal: reports';
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
    async (request) =>
      basketView(deps, requireSession(request), request.params.trackingUnitId, request.params.basketId),
  );
};
