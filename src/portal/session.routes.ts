import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Counter } from 'prom-client';
import { Type } from 'typebox';
import { type Session, sessionOf, signIn, signOut } from '../portal-users/portal-auth.service.js';
import { AppError } from '../shared/errors.js';
import { clientKey } from '../shared/failure-throttle.js';
import { AddressThrottle } from '../store/address-throttle.js';
import { sendThrottleBudget } from '../wire/rate-limit.js';
import { setUserLang } from '../portal-users/portal-user.store.js';
import { answer, auth } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';
import { langOf } from './i18n.js';
import { MeSchema, portalErrors } from './schemas.js';
import { SESSION_COOKIE, noStore, readCookie, requireSession, sessionCookie } from './session.js';

const TAG = 'Portal: session';

/** The signed-in user and their merchant, as the pages' header and the API's `/me` show them. */
export function meView(request: FastifyRequest, session?: Session | null) {
  const s = session ?? requireSession(request);
  return {
    email: s.email,
    role: s.role,
    lang: langOf(s.lang, request.headers['accept-language']),
    csrfToken: s.csrfToken,
    merchant: {
      serviceUserName: s.serviceUserName,
      displayName: s.displayName,
      currency: s.currency,
      timeZone: s.timeZone,
    },
  };
}

export const portalSessionRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;
  const { config } = app.ctx;
  // Failed sign-ins per client address, besides each account's own lock-out (docs/decisions.md,
  // "Merchant portal", sign-in throttle): one address trying many accounts is slowed down too.
  const throttle = new AddressThrottle(
    db,
    'portal-sign-in',
    config.portalSignInMaxFailures,
    config.portalSignInWindowSeconds * 1000,
  );
  const failures = new Counter({
    name: 'punchcard_portal_sign_in_failures_total',
    help: 'Portal sign-ins refused: wrong e-mail or password, or a locked account (refused), or from an address over its failures (throttled).',
    labelNames: ['outcome'] as const,
    registers: [app.metricsRegistry],
  });

  app.post(
    '/session',
    {
      schema: {
        tags: [TAG],
        summary: 'Sign in to the merchant portal',
        operationId: 'signInPortal',
        description:
          'Sets the session cookie (http-only, SameSite=Lax, Secure behind https, 12 hours) and answers the ' +
          'CSRF token for changes. Five failed sign-ins in a row lock the account for 15 minutes; failed ' +
          'sign-ins from one client address (an IPv6 address by its /64) are limited too ' +
          '(PORTAL_SIGN_IN_MAX_FAILURES per PORTAL_SIGN_IN_WINDOW_SECONDS, then 429 with Retry-After).',
        security: auth.none,
        body: Type.Object(
          { email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ maxLength: 200 }) },
          { title: 'PortalSignIn' },
        ),
        response: {
          200: answer('Signed in: the user, the merchant and the CSRF token.', MeSchema),
          ...apiErrors({
            400: 'Body invalid (invalid_request).',
            401: 'E-mail or password wrong (sign_in_failed).',
            429:
              'Locked after five failed sign-ins, for 15 minutes (sign_in_locked); or too many failed sign-ins ' +
              'from this address, retry after Retry-After seconds (sign_in_throttled).',
          }),
        },
      },
    },
    async (request, reply) => {
      const key = clientKey(request.ip);
      const nowMs = app.ctx.clock.nowMs();
      const state = await throttle.check(key, nowMs);
      if (state.waitMs > 0) {
        failures.inc({ outcome: 'throttled' });
        sendThrottleBudget(reply, state.budget);
        reply.header('retry-after', String(Math.ceil(state.waitMs / 1000)));
        throw new AppError('portalSignInThrottled');
      }
      let session: Awaited<ReturnType<typeof signIn>>;
      try {
        session = await signIn(app.services.accounts, request.body.email, request.body.password);
      } catch (err) {
        if (
          err instanceof AppError &&
          (err.entry.code === 'sign_in_failed' || err.entry.code === 'sign_in_locked')
        ) {
          failures.inc({ outcome: 'refused' });
          sendThrottleBudget(reply, await throttle.recordFailure(key, nowMs));
        } else sendThrottleBudget(reply, state.budget);
        throw err;
      }
      sendThrottleBudget(reply, state.budget);
      noStore(reply);
      reply.header('set-cookie', sessionCookie(app, session.token, session.expiresAt));
      const signedIn = await sessionOf(app.services.accounts, session.token);
      if (!signedIn) throw new AppError('portalNotSignedIn');
      return meView(request, signedIn);
    },
  );

  app.delete(
    '/session',
    {
      schema: {
        tags: [TAG],
        summary: 'Sign out: the session ends on the server and the cookie is cleared',
        operationId: 'signOutPortal',
        security: auth.portalChange,
        response: { 204: answer('Signed out.', Type.Null()), ...portalErrors({}, { change: true }) },
      },
    },
    async (request, reply) => {
      requireSession(request);
      const token = readCookie(request, SESSION_COOKIE);
      if (token) await signOut(app.services.accounts, token);
      reply.header('set-cookie', sessionCookie(app, null, null));
      return reply.code(204).send(undefined as never);
    },
  );

  app.get(
    '/me',
    {
      schema: {
        tags: [TAG],
        summary: 'The signed-in user, the merchant and the CSRF token',
        operationId: 'getPortalMe',
        security: auth.portal,
        response: { 200: answer('The signed-in user.', MeSchema), ...portalErrors({}) },
      },
    },
    async (request, reply) => {
      noStore(reply);
      return meView(request);
    },
  );

  app.put(
    '/me/lang',
    {
      schema: {
        tags: [TAG],
        summary: "Choose the portal's language for this user",
        operationId: 'setPortalLanguage',
        security: auth.portalChange,
        body: Type.Object(
          { lang: Type.Union([Type.Literal('de'), Type.Literal('en')]) },
          { title: 'PortalLanguage' },
        ),
        response: {
          200: answer('The signed-in user, in the new language.', MeSchema),
          ...portalErrors({ 400: 'Body invalid (invalid_request).' }, { change: true }),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      await setUserLang(db, s.userId, request.body.lang);
      return meView(request, { ...s, lang: request.body.lang });
    },
  );
};
