import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { readBasket } from '../baskets/basket.store.js';
import { findMerchantByName } from '../merchants/merchant.store.js';
import { receiptUrl } from '../receipts/receipt.store.js';
import { AppError } from '../shared/errors.js';
import { answer } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';

const BasketSchema = Type.Object(
  {
    trackingUnitId: Type.String(),
    basketId: Type.String(),
    outletId: Type.Integer(),
    uploadedAt: Type.String({ format: 'date-time' }),
    grantedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    redeemedInPos: Type.Union([Type.Boolean(), Type.Null()]),
    profileId: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The consumer profile the upload identified.',
    }),
    receiptUrl: Type.Union([Type.String(), Type.Null()], {
      description: 'The digital receipt (PUBLIC_BASE_URL/receipts/{id}); null until the basket is granted.',
    }),
    returns: Type.Integer({ description: 'Returns booked against the basket.' }),
  },
  { title: 'OperatorBasket' },
);

/**
 * The operator's read of one basket, with the receipt URL of its grant (docs/decisions.md,
 * "Notifications, receipts and the consumer portal", "Receipt links").
 */
export const adminBasketRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const { db } = ctx.database;
  app.get(
    '/merchants/:serviceUserName/baskets/:trackingUnitId/:basketId',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: "Read a basket's state and its receipt URL",
        operationId: 'readBasket',
        params: Type.Object({
          serviceUserName: Type.String({ minLength: 1, maxLength: 200 }),
          trackingUnitId: Type.String({ minLength: 1, maxLength: 200 }),
          basketId: Type.String({ minLength: 1, maxLength: 200 }),
        }),
        response: {
          200: answer('The basket.', BasketSchema),
          ...apiErrors({
            404: 'Merchant or basket unknown (not_found).',
            401: 'Authorization missing or wrong (unauthorized).',
          }),
        },
      },
    },
    async (request) => {
      const { serviceUserName, trackingUnitId, basketId } = request.params;
      const merchant = await findMerchantByName(db, serviceUserName);
      if (!merchant) throw new AppError('notFound', `No merchant "${serviceUserName}".`);
      const basket = await readBasket(db, merchant.id, trackingUnitId, basketId);
      if (!basket) throw new AppError('notFound', 'No such basket.');
      return {
        trackingUnitId,
        basketId,
        outletId: basket.outletId,
        uploadedAt: basket.uploadedAt.toISOString(),
        grantedAt: basket.grantedAt?.toISOString() ?? null,
        redeemedInPos: basket.redeemedInPos,
        profileId: basket.profileId,
        receiptUrl: basket.receiptId === null ? null : receiptUrl(ctx.config.publicBaseUrl, basket.receiptId),
        returns: basket.returns,
      };
    },
  );
};
