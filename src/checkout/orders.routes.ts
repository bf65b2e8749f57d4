import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { placeOrderAtOnce } from '../orders/order-at-once.js';
import { placeOrderUnderKey } from '../orders/order-idempotent.js';
import { quoteBasket } from '../orders/order.service.js';
import { readOrder } from '../orders/order-read.js';
import { refundOrder } from '../orders/refund.service.js';
import { AppError } from '../shared/errors.js';
import { errorPayload } from '../wire/error-render.js';
import { answer } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';
import { checkSignedOrder, checkoutCaller, freshCaller } from './checkout-auth.js';
import {
  BasketAnswer,
  BasketRequest,
  OrderAnswer,
  OrderRequest,
  PlacedOrder,
  RefundAnswer,
  RefundRequest,
} from './checkout.schemas.js';
import { checkoutAuth, keyErrors, keyedAnswer, keyedDescription, pricingErrors } from './checkout-openapi.js';
import { sendKeyed } from './keyed-route.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const BasketIdParams = Type.Object({ basketId: Type.String({ minLength: 1, maxLength: 100 }) });

export const checkoutOrderRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = app.services.checkout;
  if (!app.hasRequestDecorator('signedOrder')) app.decorateRequest('signedOrder', null);

  app.post(
    '/baskets',
    {
      schema: {
        tags: ['Checkout'],
        summary: 'Price a basket (stores nothing)',
        operationId: 'priceBasket',
        description:
          'Same body as an order, with profileReference and totalGross optional (totalGross is checked when ' +
          'given). Answers the order shape without balance and receiptUrl. With profileReference a campaign with a ' +
          "usage limit per customer or limited to status tiers counts the customer's uses and tier as the order " +
          'will; without it such a campaign does not apply.',
        security: checkoutAuth.token,
        body: BasketRequest,
        response: {
          200: answer('The priced basket.', BasketAnswer),
          ...apiErrors({
            401: 'Authorization missing or unknown (unauthorized).',
            422: 'unknown_plu, duplicate_plu, price_missing, vat_rate_missing (details name the position), menu_unknown, total_mismatch (details.expectedTotalGross), profile_not_found.',
          }),
        },
      },
    },
    async (request) => quoteBasket(deps, checkoutCaller(request), request.body),
  );

  app.post(
    '/orders',
    {
      schema: {
        tags: ['Checkout'],
        summary: 'Create an order, priced and optionally paid from the profile balance',
        operationId: 'createOrder',
        description:
          'Signed: `Security-Token` is the lowercase hex HMAC-SHA256, keyed with the securitySecret, of ' +
          '`Timestamp + "\\n" + Idempotency-Key + "\\n" + body bytes`; `Timestamp` (ISO 8601 or Unix seconds) ' +
          'within 300 s of the server clock. `Idempotency-Key` (kept 24 h per client): the same key and body ' +
          'replays the first answer byte for byte with `Idempotent-Replayed: true`. Nothing is ever charged twice. ' +
          "Campaigns of the channel checkout apply, with the customer's uses of a campaign limited per customer (at " +
          'the tills and in orders together) and their status tiers, and a budget while the reward fits it; the order ' +
          'books its uses and its share of a budget, and a refund in whole gives them back.',
        security: checkoutAuth.signed,
        body: OrderRequest,
        response: {
          200: answer('The order as stored, with the balance movement and the receipt URL.', OrderAnswer),
          ...apiErrors({
            400: 'Idempotency-Key missing (idempotency_key_missing); body invalid (invalid_request).',
            401: 'Authorization unknown (unauthorized); Timestamp outside 300 s (timestamp_invalid); Security-Token wrong (security_token_invalid).',
            409: 'The same Idempotency-Key is still being processed (idempotency_key_in_flight); the basketId was ordered already (order_exists).',
            422: `${pricingErrors}; insufficient_balance, reservation_not_usable, charge_not_allowed, currency_mismatch, idempotency_key_reused, profile_not_found.`,
          }),
        },
      },
      // The order's write re-checks the client (and the menu it was priced from).
      config: { rememberedClient: true },
      // Before validation: a request that is not signed learns nothing about its body.
      preValidation: async (request) => {
        request.signedOrder = checkSignedOrder(request, app.ctx.clock.nowMs());
      },
    },
    async (request, typedReply) => {
      // The answer is sent as the text that the idempotency record keeps, byte for byte.
      const reply = typedReply as unknown as FastifyReply;
      const signed = request.signedOrder;
      if (!signed) throw new AppError('checkoutSecurityToken');
      const send = (status: number, text: string, replayed: boolean) => {
        if (replayed) reply.header('Idempotent-Replayed', 'true');
        return reply.code(status).type(JSON_TYPE).send(text);
      };
      const once = await placeOrderAtOnce(deps, checkoutCaller(request), request.body, signed, request.id);
      if (once) return send(once.status, once.body, once.replayed);
      // In separate statements, from the client looked up afresh (401 if it was revoked meanwhile).
      const caller = await freshCaller(request);
      // A refusal is the answer to this key too: the same request gets it again.
      const kept = await placeOrderUnderKey(deps, caller, request.body, signed, (err) => ({
        status: err.entry.status,
        text: errorPayload(err, { pos: false, format: 'json' }, null, request.id).text,
      }));
      return send(kept.status, kept.body, kept.replayed);
    },
  );

  app.get(
    '/orders/:basketId',
    {
      schema: {
        tags: ['Checkout'],
        summary: 'Read an order back: as placed, with its state and its refunds',
        operationId: 'readOrder',
        description:
          'The order answer of `POST /orders` as it was placed (the balance movement without the ' +
          'reservation detail), with `status` completed, partially_refunded or refunded, what refunds ' +
          'gave back and may still give back, and each refund.',
        security: checkoutAuth.token,
        params: BasketIdParams,
        response: {
          200: answer('The order.', PlacedOrder),
          ...apiErrors({
            401: 'Authorization missing or unknown (unauthorized).',
            404: 'No order of the merchant under this basketId (order_not_found).',
          }),
        },
      },
    },
    async (request) => readOrder(deps, checkoutCaller(request), request.params.basketId),
  );

  app.post(
    '/orders/:basketId/refund',
    {
      schema: {
        tags: ['Checkout'],
        summary: 'Refund an order, in whole or in part: its balance charge goes back to the profile',
        operationId: 'refundOrder',
        description:
          'No body (or `{}`): everything still refundable goes back and the order becomes `refunded`; ' +
          'refunding a refunded order so books nothing and answers the same. `amount`: that much of ' +
          'the charge; `positions`: a quantity of each position, priced in proportion to the ' +
          'position (its last refund gives back what is left of it). The order is ' +
          '`partially_refunded` until its refunds add up to the charge; they never pass it. Refunded in whole, ' +
          "the order gives back its uses of campaigns limited per customer and its share of campaigns' budgets." +
          keyedDescription,
        security: checkoutAuth.token,
        params: BasketIdParams,
        body: RefundRequest,
        response: {
          200: keyedAnswer('The refund, with the order after it.', RefundAnswer),
          ...apiErrors({
            400: `Body invalid, or a quantity with more than three decimals (invalid_request); ${keyErrors[400]}.`,
            401: 'Authorization missing or unknown (unauthorized).',
            404: 'No order of the merchant under this basketId (order_not_found).',
            409: `${keyErrors[409]}.`,
            422: `${keyErrors[422]}; refund_exceeds_refundable (details.refundableAmount), refund_position_unknown (details.positionId), refund_quantity_exceeds (details.positionId, details.remainingQuantity), refund_amount_and_positions.`,
          }),
        },
      },
      // No body at all is the whole refund, as before partial refunds.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    async (request, reply) =>
      sendKeyed(request, reply, deps, 200, (keep) =>
        refundOrder(deps, checkoutCaller(request), request.params.basketId, request.body, keep),
      ),
  );
};
