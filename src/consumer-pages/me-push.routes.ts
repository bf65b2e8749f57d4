import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { consumerSession, subscribePush } from '../notifications/consumer-portal.js';
import { checkPushEndpoint } from '../notifications/push.js';
import { AppError } from '../shared/errors.js';
import { answer, auth } from '../wire/openapi.js';
import { SESSION_COOKIE } from './me.routes.js';

/** The consumer portal's one JSON call: a browser's push subscription (in /openapi.json). */
export async function mePushRoutes(app: FastifyInstance): Promise<void> {
  const { consumers } = app.services;
  const services = app.services.notifications;
  const SubscriptionBody = Type.Object(
    {
      endpoint: Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'The push service URL of the subscription.',
      }),
      expirationTime: Type.Optional(Type.Union([Type.Null(), Type.Number()])),
      keys: Type.Object({
        p256dh: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_-]+=*$' }),
        auth: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+=*$' }),
      }),
    },
    { title: 'PushSubscription', description: "A browser's PushSubscription as its toJSON() gives it." },
  );
  app.post<{ Body: { endpoint: string; keys: { p256dh: string; auth: string } } }>(
    '/push-subscriptions',
    {
      schema: {
        operationId: 'subscribePush',
        summary: 'Subscribe this browser to push messages (purchases, tiers reached)',
        description:
          'Called by the consumer portal with the session cookie and the CSRF token of the page (header X-CSRF-Token).',
        tags: ['Consumer portal'],
        security: auth.consumerSession,
        headers: Type.Object({ 'x-csrf-token': Type.Optional(Type.String({ maxLength: 100 })) }),
        body: SubscriptionBody,
        response: {
          201: answer('Subscribed.', Type.Object({ subscribed: Type.Boolean() })),
          400: Type.Ref('ApiError', {
            description: 'Not a browser push subscription (push_subscription_invalid).',
          }),
          401: Type.Ref('ApiError', { description: 'No session (sign_in_required).' }),
          403: Type.Ref('ApiError', { description: 'Missing or wrong CSRF token (csrf_token_invalid).' }),
        },
      },
    },
    async (request, reply) => {
      const cookie = request.cookies[SESSION_COOKIE];
      const s = cookie ? await consumerSession(consumers, cookie) : undefined;
      if (!s) throw new AppError('consumerSignInRequired');
      if (request.headers['x-csrf-token'] !== s.csrfToken) throw new AppError('csrfTokenInvalid');
      const { endpoint, keys } = request.body;
      const where = await checkPushEndpoint(endpoint, services.allowPlainPush);
      if (!where.ok) throw new AppError('pushSubscriptionInvalid');
      await subscribePush(consumers, s.merchantId, s.profileId, {
        endpoint,
        p256dh: keys.p256dh,
        auth: keys.auth,
      });
      return reply.code(201).send({ subscribed: true });
    },
  );
}
