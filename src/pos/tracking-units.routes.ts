import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  reassignTerminalPlacement,
  registerNewTerminal,
  resolvePlacement,
} from '../merchants/terminal.service.js';
import { answer } from '../wire/openapi.js';
import { Empty, posErrors, sendEmpty } from '../wire/schemas.js';
import { AUTH_REFUSALS, callerDevKeyId, callerUnit } from './route-auth.js';

const RegistrationQuery = Type.Object({
  serviceUserName: Type.Optional(Type.String({ maxLength: 200 })),
  outletId: Type.Integer({ minimum: 1, description: 'Outlet in which the unit is registered.' }),
  sortimentId: Type.Optional(Type.Integer({ minimum: 1, description: 'Sortiment on which the unit works.' })),
  instanceName: Type.Optional(
    Type.String({ maxLength: 200, description: 'Shown to the merchant in the portal. Required (10002).' }),
  ),
});

export const trackingUnitRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { merchants } = app.services;

  app.get(
    '/trackingUnits',
    {
      config: { auth: 'devKey' },
      schema: {
        tags: ['POS: registration'],
        summary: 'Register a terminal (trackingUnit)',
        operationId: 'registerTrackingUnit',
        description:
          'Header DevKey only. Every call returns a new identifier: call it once per terminal and store both values. ' +
          'A new unit is inactive until the merchant activates it.',
        querystring: RegistrationQuery,
        requiredQuery: ['serviceUserName', 'instanceName'],
        response: {
          200: answer(
            'The new terminal: its identifier and the secret its SecurityTokens are computed with.',
            Type.Object(
              { trackingUnitId: Type.String(), checksumSecret: Type.String() },
              { xml: { name: 'TrackingUnit' }, title: 'TrackingUnit' },
            ),
          ),
          ...posErrors({
            400: 'Query invalid (1000); unknown user name (10001); no instance name (10002); outlet not of the merchant (10003); sortiment unknown (12001).',
            ...AUTH_REFUSALS.devKey,
          }),
        },
      },
    },
    async (request) => {
      const devKeyId = callerDevKeyId(request);
      const placement = await resolvePlacement(merchants, request.query, null);
      return registerNewTerminal(merchants, devKeyId, placement, app.ctx.config.autoActivateUnits);
    },
  );

  app.post(
    '/trackingUnits',
    {
      config: { auth: 'unit' },
      schema: {
        tags: ['POS: registration'],
        summary: 'Re-assign a terminal to another outlet or sortiment',
        operationId: 'reassignTrackingUnit',
        description: 'Headers DevKey and trackingUnitId. Same query as registration; 200 with an empty body.',
        querystring: RegistrationQuery,
        requiredQuery: ['serviceUserName', 'instanceName'],
        response: {
          200: answer('Re-assigned (empty body).', Empty),
          ...posErrors({
            400: 'Query invalid (1000); unknown user name (10001); no instance name (10002); outlet not of the merchant (10003); sortiment unknown (12001).',
            401: 'DevKey or trackingUnitId missing, unknown or not matching (1001, 1002); DevKey revoked (1043).',
            403: 'trackingUnit deactivated by the operator (1042).',
          }),
        },
      },
    },
    async (request, reply) => {
      const { unit } = callerUnit(request);
      const placement = await resolvePlacement(merchants, request.query, unit.merchantId);
      // resolvePlacement keeps the unit with its merchant, so the update is confined to it.
      await reassignTerminalPlacement(merchants, unit.unitId, placement);
      return sendEmpty(reply);
    },
  );
};
