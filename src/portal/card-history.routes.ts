import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { answer, auth } from '../wire/openapi.js';
import { PageOf, createdQueryFields, pageErrors, pageQueryFields } from '../wire/paging.js';
import { MovementSchema, PointsMovementSchema, portalErrors } from './schemas.js';
import { requireSession } from './session.js';
import {
  cardBalanceHistoryView,
  cardPointsHistoryView,
  profileBalanceHistoryView,
  profilePointsHistoryView,
} from './customer-views.js';
import { viewDeps } from './views.js';

/**
 * A card's and a customer's whole histories, page by page (docs/decisions.md, "A card's whole
 * history"): the card's and the customer's answers carry the newest 100 movements, these every one.
 */

const TAG = 'Portal: cards';
const CardParams = Type.Object({ tokenId: Type.String({ minLength: 1, maxLength: 200 }) });
const ProfileParams = Type.Object({ profileId: Type.Integer({ minimum: 1 }) });
const Query = Type.Object({ ...pageQueryFields, ...createdQueryFields });
const BalancePage = PageOf(MovementSchema, 'PortalBalanceMovementPage');
const PointsPage = PageOf(PointsMovementSchema, 'PortalPointsMovementPage');
const BALANCE_ORDER =
  'Newest first, a page at a time, whichever interface booked each, those booked from `createdFrom` to before `createdTo` when given; every page gives each movement the balance after it (the sum of every movement of the account up to it, whatever the filter), so the newest of the unfiltered first page is the balance.';

export const portalCardHistoryRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = viewDeps(app);

  app.get(
    '/cards/:tokenId/balanceHistory',
    {
      schema: {
        tags: [TAG],
        summary: "Every movement of the balance a card pays from (its customer's, when it has one)",
        description: BALANCE_ORDER,
        operationId: 'listPortalCardBalanceHistory',
        security: auth.portal,
        params: CardParams,
        querystring: Query,
        response: {
          200: answer('The movements.', BalancePage),
          ...portalErrors({ ...pageErrors, 404: "Card unknown, or another merchant's (card_unknown)." }),
        },
      },
    },
    async (request) =>
      cardBalanceHistoryView(deps, requireSession(request), request.params.tokenId, request.query),
  );

  app.get(
    '/profiles/:profileId/balanceHistory',
    {
      schema: {
        tags: [TAG],
        summary: "Every movement of a customer's balance",
        description: BALANCE_ORDER,
        operationId: 'listPortalProfileBalanceHistory',
        security: auth.portal,
        params: ProfileParams,
        querystring: Query,
        response: {
          200: answer('The movements.', BalancePage),
          ...portalErrors({ ...pageErrors, 404: "Customer unknown, or another merchant's (not_found)." }),
        },
      },
    },
    async (request) =>
      profileBalanceHistoryView(deps, requireSession(request), request.params.profileId, request.query),
  );

  app.get(
    '/cards/:tokenId/pointsHistory',
    {
      schema: {
        tags: [TAG],
        summary: 'Every points movement of a card and of its customer',
        description:
          'Newest first, a page at a time, those booked from `createdFrom` to before `createdTo` when given: what the card earned and spent, what returns gave back or took back, and what moved when the card was linked to its customer.',
        operationId: 'listPortalCardPointsHistory',
        security: auth.portal,
        params: CardParams,
        querystring: Query,
        response: {
          200: answer('The movements.', PointsPage),
          ...portalErrors({ ...pageErrors, 404: "Card unknown, or another merchant's (card_unknown)." }),
        },
      },
    },
    async (request) =>
      cardPointsHistoryView(deps, requireSession(request), request.params.tokenId, request.query),
  );

  app.get(
    '/profiles/:profileId/pointsHistory',
    {
      schema: {
        tags: [TAG],
        summary: 'Every points movement of a customer and of the cards they hold',
        description:
          "Newest first, a page at a time, those booked from `createdFrom` to before `createdTo` when given: what the customer and the cards they hold earned and spent, what returns gave back or took back, and what moved when a card was linked to them. A released card's movements are no longer among them; what moved to the customer when it was linked stays.",
        operationId: 'listPortalProfilePointsHistory',
        security: auth.portal,
        params: ProfileParams,
        querystring: Query,
        response: {
          200: answer('The movements.', PointsPage),
          ...portalErrors({ ...pageErrors, 404: "Customer unknown, or another merchant's (not_found)." }),
        },
      },
    },
    async (request) =>
      profilePointsHistoryView(deps, requireSession(request), request.params.profileId, request.query),
  );
};
