import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { findMerchantByName } from '../merchants/merchant.store.js';
import { receiptDetailsOf, setReceiptDetails } from '../merchants/receipt-details.js';
import { AppError } from '../shared/errors.js';
import { ReceiptDetailsBodySchema, ReceiptDetailsSchema } from '../wire/documents/receipt-details.schemas.js';
import { answer } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';

const auth = { 401: 'Authorization missing or wrong (unauthorized).' };
const Params = Type.Object({ serviceUserName: Type.String() });

/**
 * A merchant's receipt details (docs/decisions.md, "Receipts a shop can hand out"): the legal
 * name, address and VAT identification number its receipts show.
 */
export const adminReceiptDetailsRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { merchants } = app.services;

  async function merchantId(serviceUserName: string): Promise<number> {
    const merchant = await findMerchantByName(merchants.db, serviceUserName);
    if (!merchant) throw new AppError('notFound', `No merchant "${serviceUserName}".`);
    return merchant.id;
  }

  app.get(
    '/merchants/:serviceUserName/receiptDetails',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'What the receipts say of the merchant: legal name, address, VAT id',
        operationId: 'getReceiptDetails',
        params: Params,
        response: {
          200: answer('The receipt details; null for a field not set.', ReceiptDetailsSchema),
          ...apiErrors({ 404: 'Merchant unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => receiptDetailsOf(merchants, await merchantId(request.params.serviceUserName)),
  );

  app.put(
    '/merchants/:serviceUserName/receiptDetails',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: 'Set what the receipts say of the merchant: legal name, address, VAT id',
        operationId: 'setReceiptDetails',
        description:
          'Replaces all three: a field left out is not set afterwards, and the receipt leaves it out (with none ' +
          "set, a receipt shows the merchant's name only). Takes effect on every receipt shown from then on, " +
          'older ones included.',
        params: Params,
        body: ReceiptDetailsBodySchema,
        response: {
          200: answer('The receipt details after the change.', ReceiptDetailsSchema),
          ...apiErrors({
            400:
              'Body invalid: an empty or blank value, control characters, a VAT id not of the form DE123456789, ' +
              'or an address of more than 6 lines (invalid_request).',
            404: 'Merchant unknown (not_found).',
            ...auth,
          }),
        },
      },
    },
    async (request) =>
      setReceiptDetails(merchants, await merchantId(request.params.serviceUserName), request.body),
  );
};
