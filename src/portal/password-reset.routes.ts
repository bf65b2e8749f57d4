import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { RESET_TTL_MS } from '../portal-users/password-reset.store.js';
import { issueReset, resetPassword } from '../portal-users/password-reset.service.js';
import { AppError } from '../shared/errors.js';
import { clientKey } from '../shared/failure-throttle.js';
import { AddressThrottle } from '../store/address-throttle.js';
import { answer, auth } from '../wire/openapi.js';
import { sendThrottleBudget } from '../wire/rate-limit.js';
import { apiErrors } from '../wire/schemas.js';
import { langOf } from './i18n.js';
import { composeResetMail } from '../notifications/portal-link-mail.js';
import { sendLinkMail } from '../notifications/mail-retry.js';

const TAG = 'Portal: team';

/** Requests for a link per client address in RESET_TTL_MS, known e-mails or not. */
export const RESET_REQUESTS_PER_ADDRESS = 10;

/**
 * A forgotten password (docs/decisions.md, "A forgotten password"): a link by e-mail, then a new
 * password with it. Neither answer tells whether an e-mail belongs to a user.
 */
export const portalPasswordResetRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;
  const { accounts, notifications } = app.services;
  const base = app.ctx.config.publicBaseUrl;
  const requests = new AddressThrottle(
    db,
    'portal-password-resets',
    RESET_REQUESTS_PER_ADDRESS,
    RESET_TTL_MS,
  );

  app.post(
    '/passwordResets',
    {
      schema: {
        tags: [TAG],
        summary: 'Forgot the password: mail a link that sets a new one',
        operationId: 'requestPortalPasswordReset',
        description:
          'Answers the same whether or not a portal user has the e-mail; if one has, a link is mailed that ' +
          'works once, for 30 minutes (at most three links per user in that time). Every request counts ' +
          `against its client address: ${RESET_REQUESTS_PER_ADDRESS} in 30 minutes, then 429 with Retry-After.`,
        security: auth.none,
        body: Type.Object(
          {
            email: Type.String({ minLength: 1, maxLength: 254 }),
            lang: Type.Optional(
              Type.Union([Type.Literal('de'), Type.Literal('en')], {
                description: "The mail's language when the user has chosen none (else the browser's).",
              }),
            ),
          },
          { title: 'PortalPasswordResetRequest', additionalProperties: false },
        ),
        response: {
          204: answer('Taken: a link is on its way if a portal user has the e-mail.', Type.Null()),
          ...apiErrors({
            400: 'Body invalid (invalid_request).',
            429: 'Too many requests from this address; retry after Retry-After seconds (password_reset_throttled).',
          }),
        },
      },
    },
    async (request, reply) => {
      const key = clientKey(request.ip);
      const nowMs = app.ctx.clock.nowMs();
      const state = await requests.check(key, nowMs);
      if (state.waitMs > 0) {
        sendThrottleBudget(reply, state.budget);
        reply.header('retry-after', String(Math.ceil(state.waitMs / 1000)));
        throw new AppError('portalPasswordResetThrottled');
      }
      sendThrottleBudget(reply, await requests.recordFailure(key, nowMs));
      const lang = langOf(request.body.lang ?? null, request.headers['accept-language']);
      const { email } = request.body;
      // The answer is given before anything is looked up: neither it nor its timing tells whether
      // the e-mail has an account. The link is written and mailed after it.
      await notifications.afterAnswer.run(
        async (stop) => {
          const issued = await issueReset(accounts, email);
          if (!issued) return;
          const link = `${base}/portal/reset/${issued.token}`;
          await sendLinkMail(notifications.mailer, composeResetMail(issued.target, link, lang), stop).catch(
            (err: unknown) => request.log.warn({ err }, 'password reset mail not sent'),
          );
        },
        (err) => request.log.error({ err }, 'password reset link not written'),
      );
      return reply.code(204).send(undefined as never);
    },
  );

  app.post(
    '/passwordResets/redeem',
    {
      schema: {
        tags: [TAG],
        summary: "Set a new password with a mailed link's token",
        operationId: 'redeemPortalPasswordReset',
        description:
          'The token is the last part of the mailed link. The new password takes effect at once: every ' +
          'session of the user ends, a lock-out is lifted, and the link and any other link of theirs stop ' +
          'working.',
        security: auth.none,
        body: Type.Object(
          {
            token: Type.String({ minLength: 1, maxLength: 100 }),
            newPassword: Type.String({
              minLength: 1,
              maxLength: 200,
              description: 'At least 10 characters.',
            }),
          },
          { title: 'PortalPasswordReset', additionalProperties: false },
        ),
        response: {
          204: answer('The new password is set; sign in with it.', Type.Null()),
          ...apiErrors({
            400:
              'Body invalid (invalid_request), the new password shorter than 10 characters (password_too_short), ' +
              'or the link unknown, used or expired (password_reset_invalid).',
          }),
        },
      },
    },
    async (request, reply) => {
      await resetPassword(accounts, request.body.token, request.body.newPassword);
      return reply.code(204).send(undefined as never);
    },
  );
};
