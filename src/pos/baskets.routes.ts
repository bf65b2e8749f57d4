import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { answer, auth } from '../wire/openapi.js';
import { posErrors } from '../wire/schemas.js';
import { AUTH_REFUSALS, callerUnit, verifySecurityToken } from './route-auth.js';
import { BasketResponseSchema, BasketSchema, GrantResponseSchema } from '../wire/documents/basket.schemas.js';
import { grantForTill } from '../baskets/till-grant.js';
import type { AuthenticatedUnit } from '../merchants/terminal.js';
import { ReturnBodySchema, ReturnResponseSchema } from './basket-return.schemas.js';
import { returnBasket } from '../baskets/basket-return.js';
import { uploadBasket } from '../baskets/basket-upload.js';
import { legacyBodyReader } from './legacy-body.js';

const BasketParams = Type.Object({
  basketId: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'Client-generated, unique per trackingUnit.',
  }),
});

export const basketRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/baskets/:basketId',
    {
      config: { auth: 'rememberedUnit' },
      schema: {
        tags: ['POS: baskets'],
        summary: 'Upload a basket and read its rewards',
        operationId: 'uploadBasket',
        description:
          'Headers DevKey and trackingUnitId. Until granted, a basket can be resubmitted any number of times; ' +
          'each upload stores the whole basket anew and recomputes its rewards from scratch. ' +
          'The rewards are provisional until the grant. ' +
          'ContextIdentifiers shaped like a one-time password (8 digits) that are no card count against limits ' +
          'on failed identifications (docs/security.md).',
        params: BasketParams,
        querystring: Type.Object({
          consumerIdentToken: Type.Optional(Type.String({ maxLength: 200 })),
          giftCardId: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        body: BasketSchema,
        response: {
          200: answer("The basket's provisional rewards and loyalty points.", BasketResponseSchema),
          ...posErrors({
            400:
              'Body invalid (1000); card errors (11004 to 11009); basket granted (11010); BillPdf not a ' +
              'PDF (11015); more than 3 ' +
              'ContextIdentifiers shaped like a one-time password (8 digits) that are no card (1049).',
            ...AUTH_REFUSALS.activeUnit,
            413: 'Body too large after decompression (1008).',
            415: 'Content-Type or Content-Encoding not supported (1007, 1009).',
            429:
              'Too many failed one-time password identifications (1048): at most 5 per terminal and 10 per ' +
              'merchant per minute; repeat without the 8-digit identifiers, or later.',
            503: 'The terminal was re-assigned during the upload three times in a row (1010); repeat it.',
          }),
        },
      },
    },
    async (request) => {
      const caller = callerUnit(request);
      return uploadBasket(
        app.services.baskets,
        caller,
        app.services.terminals.auth.freshLookup(caller.credentials),
        request.params.basketId,
        request.query,
        request.body,
        request.sentJson,
        app.identificationObserver,
      );
    },
  );

  app.post(
    '/baskets/:basketId/grant',
    {
      config: { auth: 'rememberedUnit' },
      schema: {
        tags: ['POS: baskets'],
        summary: 'Grant a basket: the bill is paid and final',
        operationId: 'grantBasket',
        security: auth.unitSigned,
        description:
          'Headers DevKey, trackingUnitId and SecurityToken (MD5 of basketId + "qPnsS14" + checksumSecret). ' +
          'redeemedInPos=false books the rewards as not redeemed. A second grant answers the same body and books nothing. ' +
          'Instead of the MD5 token, SecurityToken-V2 may be sent (required for terminals switched to it; docs/security.md).',
        params: BasketParams,
        querystring: Type.Object({ redeemedInPos: Type.Optional(Type.Boolean({ default: true })) }),
        response: {
          200: answer('The granted basket with the rewards and points booked.', GrantResponseSchema),
          ...posErrors({
            400: 'Query invalid (1000).',
            ...AUTH_REFUSALS.signedUnit,
            404: 'No basket under this basketId (11011).',
          }),
        },
      },
    },
    async (request) => {
      const { basketId } = request.params;
      const { baskets, terminals } = app.services;
      const readLegacyBody = legacyBodyReader(request);
      const grant = { basketId, redeemedInPos: request.query.redeemedInPos !== false, readLegacyBody };
      const authorise = (unit: AuthenticatedUnit) => verifySecurityToken(request, unit, basketId);
      const fromRemembered = request.headers['securitytoken-v2'] === undefined;
      const { credentials } = callerUnit(request);
      return grantForTill(baskets, terminals.auth, credentials, grant, authorise, fromRemembered);
    },
  );

  app.post(
    '/baskets/:basketId/return',
    {
      config: { auth: 'activeUnit' },
      // The SecurityToken covers the ReturnId of the body, so it is checked once the body is read.
      preHandler: async (request) =>
        verifySecurityToken(
          request,
          callerUnit(request).unit,
          request.params.basketId + request.body.ReturnId,
        ),
      schema: {
        tags: ['POS: baskets'],
        summary: 'Return positions of a granted basket',
        operationId: 'returnBasket',
        security: auth.unitSigned,
        description:
          'Headers DevKey, trackingUnitId and SecurityToken (MD5 of basketId + ReturnId + "qPnsS14" + checksumSecret). ' +
          'In one transaction: points earned on the basket are taken back in proportion to the returned value ' +
          '(cumulative over all returns, so a full return takes back exactly what was earned; never below zero), ' +
          'a scheme reward gives its points back once its rewarded position (a bill reward: the whole basket) is fully returned, ' +
          'and a campaign usage is released once every position the campaign rewarded (a bill campaign: the whole basket) is fully returned. ' +
          'The same ReturnId again answers the stored response and books nothing. ' +
          'Instead of the MD5 token, SecurityToken-V2 may be sent (required for terminals switched to it; docs/security.md).',
        params: BasketParams,
        body: ReturnBodySchema,
        response: {
          200: answer('What the return took back.', ReturnResponseSchema),
          ...posErrors({
            400:
              'Body invalid, PositionId unknown or repeated, Amount not above 0 (1000); more returned than sold (11012); ' +
              'basket not granted (11013); ReturnId used with other Positions (11014).',
            ...AUTH_REFUSALS.signedUnit,
            404: 'No basket under this basketId (11011).',
            413: 'Body too large after decompression (1008).',
            415: 'Content-Type or Content-Encoding not supported (1007, 1009).',
          }),
        },
      },
    },
    async (request) => {
      const { unit } = callerUnit(request);
      return returnBasket(
        app.services.baskets,
        unit,
        request.params.basketId,
        request.body,
        legacyBodyReader(request),
      );
    },
  );
};
