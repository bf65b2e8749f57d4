import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { answer, auth } from '../wire/openapi.js';
import { posErrors } from '../wire/schemas.js';
import type { AppContext } from '../context.js';
import {
  type AuthenticatedUnit,
  type UnitCredentials,
  lookupUnit,
  onRememberedUnit,
  verifySecurityToken,
} from './auth.js';
import { callerUnit } from './route-auth.js';
import { BasketResponseSchema, BasketSchema, GrantResponseSchema } from './basket.schemas.js';
import { GrantTerminalChanged, grantBasket } from '../baskets/basket-grant.js';
import { ReturnBodySchema, ReturnResponseSchema } from './basket-return.schemas.js';
import { returnBasket } from '../baskets/basket-return.js';
import { type TerminalLookup, uploadBasket } from '../baskets/basket-upload.js';
import { legacyBodyReader } from './stored-basket.js';
import { forgetUnit, rememberUnit } from './unit-cache.js';

const BasketParams = Type.Object({
  basketId: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'Client-generated, unique per trackingUnit.',
  }),
});

/** The upload's fresh lookup of its terminal, which also refreshes the short-lived cache. */
function terminalLookup(ctx: AppContext, credentials: UnitCredentials): TerminalLookup {
  return {
    async lookup(nowMs) {
      const unit = await lookupUnit(ctx, credentials, { requireActive: true });
      rememberUnit(ctx, credentials.devKey, unit, nowMs);
      return unit;
    },
    forget: () => forgetUnit(ctx, credentials.devKey, credentials.unitId),
  };
}

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
        security: auth.unit,
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
              'Body invalid (1000); card errors (11004 to 11009); basket granted (11010); more than 3 ' +
              'ContextIdentifiers shaped like a one-time password (8 digits) that are no card (1049).',
            401: 'DevKey or trackingUnitId missing, unknown or not matching (1001, 1002); DevKey revoked (1043).',
            403: 'trackingUnit not activated (1004) or deactivated (1042).',
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
        terminalLookup(app.ctx, caller.credentials),
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
      // The MD5 grant may start from a remembered terminal: its write re-checks it (onRememberedUnit).
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
            401:
              'DevKey, trackingUnitId or SecurityToken missing or wrong (1001, 1002, 1003); DevKey revoked (1043); ' +
              'SecurityToken-V2 required (1044), malformed or wrong (1045), outside 300 s (1046) or seen before (1047).',
            403: 'trackingUnit not activated (1004) or deactivated (1042).',
            404: 'No basket under this basketId (11011).',
          }),
        },
      },
    },
    async (request) => {
      const { basketId } = request.params;
      const grant = async (unit: AuthenticatedUnit, remembered: boolean) => {
        await verifySecurityToken(request, unit, basketId);
        return grantBasket(
          app.services.baskets,
          unit,
          basketId,
          request.query.redeemedInPos !== false,
          legacyBodyReader(request),
          remembered ? unit : null,
        );
      };
      return onRememberedUnit(
        app.ctx,
        request,
        callerUnit(request),
        grant,
        (err) => err instanceof GrantTerminalChanged,
      );
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
            401:
              'DevKey, trackingUnitId or SecurityToken missing or wrong (1001, 1002, 1003); DevKey revoked (1043); ' +
              'SecurityToken-V2 required (1044), malformed or wrong (1045), outside 300 s (1046) or seen before (1047).',
            403: 'trackingUnit not activated (1004) or deactivated (1042).',
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
