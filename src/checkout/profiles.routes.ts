import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { readProfile, topUp } from '../orders/balance.service.js';
import { cancelReservation, createReservation, readReservation } from '../orders/reservation.service.js';
import { answer } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';
import { checkoutCaller } from './checkout-auth.js';
import { checkoutAuth, keyErrors, keyedAnswer, keyedDescription } from './checkout-openapi.js';
import { sendKeyed } from './keyed-route.js';
import {
  ProfileAnswer,
  ProfileParams,
  ReservationAnswer,
  ReservationParams,
  ReservationRequest,
  TopUpAnswer,
  TopUpRequest,
} from './checkout.schemas.js';

const unauthorized = { 401: 'Authorization missing or unknown (unauthorized).' };
const noProfile = { 404: 'No profile under this card id or one-time password (profile_not_found).' };

export const checkoutProfileRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = app.services.checkout;

  app.get(
    '/profiles/:reference',
    {
      schema: {
        tags: ['Checkout'],
        summary: 'Read a profile: personal info, balance with its configuration, tags',
        operationId: 'readCheckoutProfile',
        description:
          'By a customer card id linked to the profile or by a live one-time password (reading does not ' +
          'spend it). availableAmount leaves out what live reservations hold; totalAmount includes it.',
        security: checkoutAuth.token,
        params: ProfileParams,
        response: {
          200: answer('The profile.', ProfileAnswer),
          ...apiErrors({ ...unauthorized, ...noProfile }),
        },
      },
    },
    async (request) => readProfile(deps, checkoutCaller(request), request.params.reference),
  );

  app.post(
    '/profiles/:reference/topUps',
    {
      schema: {
        tags: ['Checkout'],
        summary: 'Top up the balance of a profile within its limits',
        operationId: 'createTopUp',
        description:
          'Enforces isTopUpAllowed, minSingleTopUpAmount, maxSingleTopUpAmount, maxAmount and ' +
          'maxMonthlyTopUpAmount (calendar month in the merchant’s time zone).' +
          keyedDescription,
        security: checkoutAuth.token,
        params: ProfileParams,
        body: TopUpRequest,
        response: {
          201: keyedAnswer('The top-up, booked.', TopUpAnswer),
          ...apiErrors({
            ...unauthorized,
            ...noProfile,
            400: `Body invalid (invalid_request); ${keyErrors[400]}.`,
            409: `${keyErrors[409]}.`,
            422: `top_up_not_allowed, top_up_below_minimum, top_up_above_maximum, balance_above_maximum, monthly_top_up_exceeded, currency_mismatch; ${keyErrors[422]}.`,
          }),
        },
      },
    },
    async (request, reply) =>
      sendKeyed(request, reply, deps, 201, (keep) =>
        topUp(deps, checkoutCaller(request), request.params.reference, request.body, keep),
      ),
  );

  app.post(
    '/profiles/:reference/reservations',
    {
      schema: {
        tags: ['Checkout'],
        summary: 'Reserve part of the balance of a profile for a later order',
        operationId: 'createReservation',
        description:
          'The amount is held until it is used by an order, cancelled, or expires (default 900 s, at most ' +
          '86400 s); an expired reservation frees its amount by itself.' +
          keyedDescription,
        security: checkoutAuth.token,
        params: ProfileParams,
        body: ReservationRequest,
        response: {
          201: keyedAnswer('The reservation.', ReservationAnswer),
          ...apiErrors({
            ...unauthorized,
            ...noProfile,
            400: `Body invalid (invalid_request); ${keyErrors[400]}.`,
            409: `${keyErrors[409]}.`,
            422: `insufficient_balance (available balance), charge_not_allowed, currency_mismatch; ${keyErrors[422]}.`,
          }),
        },
      },
    },
    async (request, reply) =>
      sendKeyed(request, reply, deps, 201, (keep) =>
        createReservation(deps, checkoutCaller(request), request.params.reference, request.body, keep),
      ),
  );

  app.get(
    '/reservations/:reference',
    {
      schema: {
        tags: ['Checkout'],
        summary: 'Read a reservation',
        operationId: 'readReservation',
        security: checkoutAuth.token,
        params: ReservationParams,
        response: {
          200: answer('The reservation; status expired once expiresAt has passed.', ReservationAnswer),
          ...apiErrors({
            ...unauthorized,
            404: 'No reservation under this reference (reservation_not_found).',
          }),
        },
      },
    },
    async (request) => readReservation(deps, checkoutCaller(request), request.params.reference),
  );

  app.delete(
    '/reservations/:reference',
    {
      schema: {
        tags: ['Checkout'],
        summary: 'Cancel a reservation: what it holds is free again',
        operationId: 'cancelReservation',
        description:
          'Cancelling a used, cancelled or expired reservation answers it as it is.' + keyedDescription,
        security: checkoutAuth.token,
        params: ReservationParams,
        response: {
          200: keyedAnswer('The reservation.', ReservationAnswer),
          ...apiErrors({
            400: `${keyErrors[400]}.`,
            ...unauthorized,
            404: 'No reservation under this reference (reservation_not_found).',
            409: `${keyErrors[409]}.`,
            422: `${keyErrors[422]}.`,
          }),
        },
      },
    },
    async (request, reply) =>
      sendKeyed(request, reply, deps, 200, (keep) =>
        cancelReservation(deps, checkoutCaller(request), request.params.reference, keep),
      ),
  );
};
