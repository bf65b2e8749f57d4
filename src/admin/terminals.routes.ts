import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  rotateChecksumSecret,
  setTerminalActive,
  setTerminalSecurity,
} from '../merchants/terminal.service.js';
import { answer } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';
import { TerminalStateSchema } from './merchants.schemas.js';

const auth = { 401: 'Authorization missing or wrong (unauthorized).' };

const UnitParams = Type.Object({ trackingUnitId: Type.String({ maxLength: 100 }) });

/** The operator's changes to one terminal: activation, its security settings, its checksumSecret. */
export const adminTerminalRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { merchants } = app.services;

  app.post(
    '/trackingUnits/:trackingUnitId/activate',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Activate a terminal so that it may upload baskets and maintain sortiments',
        operationId: 'activateTrackingUnit',
        description: 'Also activates a terminal the operator deactivated.',
        params: UnitParams,
        response: {
          200: answer('The terminal is active.', TerminalStateSchema),
          ...apiErrors({ 404: 'Terminal unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => setTerminalActive(merchants, request.params.trackingUnitId, true),
  );

  app.post(
    '/trackingUnits/:trackingUnitId/deactivate',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Deactivate a terminal: refused on every operation at once (403 / 1042)',
        operationId: 'deactivateTrackingUnit',
        description: 'Takes effect on the next request, on every instance. Activate undoes it.',
        params: UnitParams,
        response: {
          200: answer('The terminal is deactivated.', TerminalStateSchema),
          ...apiErrors({ 404: 'Terminal unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => setTerminalActive(merchants, request.params.trackingUnitId, false),
  );

  app.patch(
    '/trackingUnits/:trackingUnitId',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: "Change a terminal's security settings",
        operationId: 'updateTrackingUnitSettings',
        description:
          'requireSecurityTokenV2: true refuses the MD5 SecurityToken for the terminal (401 / 1044); it must send ' +
          'SecurityToken-V2 (docs/security.md).',
        params: UnitParams,
        body: Type.Object(
          { requireSecurityTokenV2: Type.Boolean() },
          { title: 'TrackingUnitSettingsChange' },
        ),
        response: {
          200: answer("The terminal's state after the change.", TerminalStateSchema),
          ...apiErrors({
            400: 'Body invalid (invalid_request).',
            404: 'Terminal unknown (not_found).',
            ...auth,
          }),
        },
      },
    },
    async (request) => setTerminalSecurity(merchants, request.params.trackingUnitId, request.body),
  );

  app.post(
    '/trackingUnits/:trackingUnitId/checksumSecret',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: "Rotate a terminal's checksumSecret",
        operationId: 'rotateChecksumSecret',
        description:
          'The new secret is answered this once; tokens made with the old one are refused from the next request on.',
        params: UnitParams,
        response: {
          200: answer(
            'The new checksumSecret, shown this once.',
            Type.Object(
              { trackingUnitId: Type.String(), checksumSecret: Type.String() },
              { title: 'RotatedChecksumSecret' },
            ),
          ),
          ...apiErrors({ 404: 'Terminal unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => rotateChecksumSecret(merchants, request.params.trackingUnitId),
  );
};
