import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { randomHex } from '../config.js';
import { AppError } from '../shared/errors.js';
import {
  type TerminalPlacement,
  findMerchantByName,
  isOutletOf,
  isSortimentOf,
  reassignTerminal,
  registerTerminal,
} from '../merchants/merchant.store.js';
import type { Database } from '../store/db.js';
import { answer, auth } from '../wire/openapi.js';
import { Empty, posErrors, sendEmpty } from '../wire/schemas.js';
import { callerDevKeyId, callerUnit } from './route-auth.js';

const RegistrationQuery = Type.Object({
  serviceUserName: Type.Optional(Type.String({ maxLength: 200 })),
  outletId: Type.Integer({ minimum: 1, description: 'Outlet in which the unit is registered.' }),
  sortimentId: Type.Optional(Type.Integer({ minimum: 1, description: 'Sortiment on which the unit works.' })),
  instanceName: Type.Optional(
    Type.String({ maxLength: 200, description: 'Shown to the merchant in the portal. Required (10002).' }),
  ),
});

/** The checks shared by registration and re-assign, in the order of the error table. */
async function resolvePlacement(
  db: Database['db'],
  query: { serviceUserName?: string; outletId: number; sortimentId?: number; instanceName?: string },
  ownMerchantId: number | null,
): Promise<TerminalPlacement> {
  const instanceName = query.instanceName?.trim();
  if (!instanceName) throw new AppError('instanceNameMissing');
  if (!query.serviceUserName) throw new AppError('userNameUnknown');
  const merchant = await findMerchantByName(db, query.serviceUserName);
  // A unit stays with its merchant: another merchant's user name answers like an unknown one.
  if (!merchant || (ownMerchantId !== null && merchant.id !== ownMerchantId)) {
    throw new AppError('userNameUnknown');
  }
  if (!(await isOutletOf(db, merchant.id, query.outletId))) throw new AppError('outletNotOfMerchant');
  let sortimentId: number | null = null;
  if (query.sortimentId !== undefined) {
    if (!(await isSortimentOf(db, merchant.id, query.sortimentId))) throw new AppError('sortimentUnknown');
    sortimentId = query.sortimentId;
  }
  return { merchantId: merchant.id, outletId: query.outletId, sortimentId, instanceName };
}

export const trackingUnitRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  app.get(
    '/trackingUnits',
    {
      config: { auth: 'devKey' },
      schema: {
        tags: ['POS: registration'],
        summary: 'Register a terminal (trackingUnit)',
        operationId: 'registerTrackingUnit',
        security: auth.devKey,
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
            401: 'DevKey missing or unknown (1001) or revoked (1043).',
          }),
        },
      },
    },
    async (request) => {
      const devKeyId = callerDevKeyId(request);
      const placement = await resolvePlacement(db, request.query, null);
      const id = randomUUID();
      const checksumSecret = randomHex(16);
      await registerTerminal(
        db,
        { ...placement, id, devKeyId, checksumSecret, activated: app.ctx.config.autoActivateUnits },
        app.ctx.clock.nowMs(),
      );
      return { trackingUnitId: id, checksumSecret };
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
        security: auth.unit,
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
      const placement = await resolvePlacement(db, request.query, unit.merchantId);
      // resolvePlacement keeps the unit with its merchant, so the update is confined to it.
      await reassignTerminal(db, unit.unitId, placement, app.ctx.clock.nowMs());
      return sendEmpty(reply);
    },
  );
};
