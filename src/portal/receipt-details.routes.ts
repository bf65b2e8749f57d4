import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { receiptDetailsOf, setReceiptDetails } from '../merchants/receipt-details.js';
import { ReceiptDetailsBodySchema, ReceiptDetailsSchema } from '../wire/documents/receipt-details.schemas.js';
import { answer, auth } from '../wire/openapi.js';
import { OWNER_ONLY, portalErrors } from './schemas.js';
import { requireOwner, requireSession } from './session.js';

const TAG = 'Portal: settings';

/**
 * The merchant's receipt details in the portal (docs/decisions.md, "Receipts a shop can hand
 * out"): every user reads them, owners change them.
 */
export const portalReceiptDetailsRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { merchants } = app.services;

  app.get(
    '/receiptDetails',
    {
      schema: {
        tags: [TAG],
        summary: 'What the receipts say of the merchant: legal name, address, VAT id',
        operationId: 'getPortalReceiptDetails',
        security: auth.portal,
        response: {
          200: answer('The receipt details; null for a field not set.', ReceiptDetailsSchema),
          ...portalErrors({}),
        },
      },
    },
    async (request) => receiptDetailsOf(merchants, requireSession(request).merchantId),
  );

  app.put(
    '/receiptDetails',
    {
      schema: {
        tags: [TAG],
        summary: 'Set what the receipts say of the merchant (owners only)',
        operationId: 'setPortalReceiptDetails',
        description:
          'Replaces all three: a field left out is not set afterwards, and the receipt leaves it out. Takes ' +
          'effect on every receipt shown from then on, older ones included.',
        security: auth.portalChange,
        body: ReceiptDetailsBodySchema,
        response: {
          200: answer('The receipt details after the change.', ReceiptDetailsSchema),
          ...portalErrors(
            {
              400:
                'Body invalid: an empty or blank value, control characters, a VAT id not of the form ' +
                'DE123456789, or an address of more than 6 lines (invalid_request).',
              403: OWNER_ONLY,
            },
            { change: true },
          ),
        },
      },
    },
    async (request) => setReceiptDetails(merchants, requireOwner(request).merchantId, request.body),
  );
};
