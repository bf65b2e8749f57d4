import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  consumerAccount,
  consumerPurchases,
  consumerSession,
  issueSignIn,
  openSignIn,
  savePreferences,
} from '../notifications/consumer-portal.js';
import { preferencesOf } from '../notifications/consumer.store.js';
import {
  type PortalSession,
  SESSION_TTL_MS,
  SIGN_IN_TTL_MS,
  endSession,
  profilesByEmail,
} from '../notifications/consumer-auth.store.js';
import { composeSignInMail } from '../notifications/sign-in-mail.js';
import { sendLinkMail } from '../notifications/mail-retry.js';
import { type Language, languageOf } from '../receipts/receipt-text.js';
import { AppError } from '../shared/errors.js';
import { clientKey } from '../shared/failure-throttle.js';
import { AddressThrottle } from '../store/address-throttle.js';
import { PUSH_SCRIPT, SERVICE_WORKER, renderAccount, renderSignIn } from './me-pages.js';

export const SESSION_COOKIE = 'pc_me';

/**
 * Sign-in link requests one client address may make in SIGN_IN_TTL_MS (15 minutes), whatever the
 * addresses asked for; then 429 with Retry-After until its window ends.
 */
export const SIGN_IN_REQUESTS_PER_ADDRESS = 10;

/** The browser's language: the `lang` field when given, else German when Accept-Language asks for it first. */
function browserLanguage(request: FastifyRequest, explicit?: string): Language {
  if (explicit) return languageOf(explicit);
  const first = String(request.headers['accept-language'] ?? '').split(',')[0] ?? '';
  return languageOf(first.trim());
}

const sendHtml = (reply: FastifyReply, text: string, status = 200) =>
  reply.code(status).header('cache-control', 'private, no-store').type('text/html; charset=utf-8').send(text);

/**
 * The consumer portal, `/me` (docs/decisions.md, "Notifications, receipts and the consumer
 * portal"): sign-in by a one-time link mailed to the profile's e-mail, a session cookie (http-only,
 * SameSite=Lax, secure when PUBLIC_BASE_URL is https), CSRF tokens on every form that changes
 * something. The pages are not API operations and stay out of /openapi.json; the one JSON call (the
 * push subscription) is in it.
 */
export async function meRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.ctx.database;
  const { consumers } = app.services;
  const base = app.ctx.config.publicBaseUrl;
  const secure = base.startsWith('https:');
  const services = app.services.notifications;
  // Sign-in link requests per client address (an IPv6 address by its /64), besides each profile's
  // own three links (docs/decisions.md, "Consumer portal"): one client cannot mail many inboxes.
  const linkRequests = new AddressThrottle(
    db,
    'consumer-sign-in-links',
    SIGN_IN_REQUESTS_PER_ADDRESS,
    SIGN_IN_TTL_MS,
  );

  const session = async (request: FastifyRequest): Promise<PortalSession | undefined> => {
    const id = request.cookies[SESSION_COOKIE];
    return id ? consumerSession(consumers, id) : undefined;
  };
  const requireCsrf = (s: PortalSession, token: unknown) => {
    if (typeof token !== 'string' || token !== s.csrfToken) throw new AppError('csrfTokenInvalid');
  };

  app.get<{
    Querystring: { page?: number; balanceCursor?: string; until?: string; saved?: string; lang?: string };
  }>(
    '/me',
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          balanceCursor: Type.Optional(Type.String({ maxLength: 400 })),
          until: Type.Optional(Type.String({ maxLength: 10 })),
          saved: Type.Optional(Type.String({ maxLength: 10 })),
          lang: Type.Optional(Type.String({ maxLength: 10 })),
        }),
      },
    },
    async (request, reply) => {
      const s = await session(request);
      if (!s) return sendHtml(reply, renderSignIn(browserLanguage(request, request.query.lang), null));
      const { balanceCursor, until } = request.query;
      const overview = await consumerAccount(consumers, s.profileId, { balanceCursor, until });
      if (!overview) return sendHtml(reply, renderSignIn(browserLanguage(request), null));
      const page = request.query.page ?? 1;
      const [purchases, preferences, keys] = await Promise.all([
        consumerPurchases(app.services.receipts, s.profileId, page, overview.until?.beforeMs),
        preferencesOf(db, s.profileId),
        services.push.keys(),
      ]);
      const lang = languageOf(
        request.query.lang ?? overview.language ?? String(request.headers['accept-language'] ?? ''),
      );
      return sendHtml(
        reply,
        renderAccount(lang, {
          overview,
          purchases,
          page,
          balanceCursor,
          csrfToken: s.csrfToken,
          preferences,
          vapidPublicKey: keys.publicKey,
          saved: request.query.saved === '1',
        }),
      );
    },
  );

  app.post<{ Body: { email: string; lang?: string } }>(
    '/me/sign-in',
    {
      schema: {
        hide: true,
        body: Type.Object({
          email: Type.String({ minLength: 1, maxLength: 254 }),
          lang: Type.Optional(Type.String({ maxLength: 10 })),
        }),
      },
    },
    async (request, reply) => {
      const lang = browserLanguage(request, request.body.lang);
      // Every request counts against its client address, known e-mail or not, so the limit tells
      // nothing of accounts; over it nothing is looked up, written or sent.
      const key = clientKey(request.ip);
      const nowMs = app.ctx.clock.nowMs();
      const { waitMs } = await linkRequests.check(key, nowMs);
      if (waitMs > 0) {
        reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
        return sendHtml(reply, renderSignIn(lang, { waitMinutes: Math.ceil(waitMs / 60_000) }), 429);
      }
      await linkRequests.recordFailure(key, nowMs);
      // The same answer whether or not the address is known, given before anything is looked up:
      // neither the page nor its timing reveals an account. The links are written and mailed after
      // it; the service's close waits for them (their sends cut off past its grace). Only while too
      // many are being written already does the answer wait, for any address alike.
      const { email } = request.body;
      await services.afterAnswer.run(
        async (stop) => {
          for (const profile of await profilesByEmail(db, email)) {
            // A profile sent its quota of links lately gets none.
            const token = await issueSignIn(consumers, profile);
            if (token === null) continue;
            const link = `${base}/me/sign-in/${token}`;
            await sendLinkMail(services.mailer, composeSignInMail(profile, link, lang), stop).catch(
              (err: unknown) => {
                request.log.warn({ err }, 'sign-in mail not sent');
              },
            );
          }
        },
        (err) => request.log.error({ err }, 'sign-in links not written'),
      );
      return sendHtml(reply, renderSignIn(lang, 'sent'));
    },
  );

  app.get<{ Params: { token: string } }>(
    '/me/sign-in/:token',
    { schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 100 }) }) } },
    async (request, reply) => {
      const opened = await openSignIn(consumers, request.params.token);
      if (!opened) return sendHtml(reply, renderSignIn(browserLanguage(request), 'invalid'), 400);
      reply.setCookie(SESSION_COOKIE, opened.sessionId, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure,
        maxAge: SESSION_TTL_MS / 1000,
      });
      return reply.code(303).header('cache-control', 'no-store').redirect('/me');
    },
  );

  app.post<{ Body: { csrf?: string; mail?: string; push?: string; language?: Language } }>(
    '/me/preferences',
    {
      schema: {
        hide: true,
        body: Type.Object({
          csrf: Type.Optional(Type.String({ maxLength: 100 })),
          mail: Type.Optional(Type.String({ maxLength: 10 })),
          push: Type.Optional(Type.String({ maxLength: 10 })),
          language: Type.Optional(Type.Union([Type.Literal('de'), Type.Literal('en')])),
        }),
      },
    },
    async (request, reply) => {
      const s = await session(request);
      if (!s) throw new AppError('consumerSignInRequired');
      requireCsrf(s, request.body.csrf);
      const prefs = { mail: request.body.mail === 'on', push: request.body.push === 'on' };
      await savePreferences(consumers, s.merchantId, s.profileId, prefs, request.body.language ?? null);
      // Back to the form, where "Saved." stands (the page is long on a phone).
      return reply.code(303).redirect('/me?saved=1#notifications');
    },
  );

  app.post<{ Body: { csrf?: string } }>(
    '/me/sign-out',
    {
      schema: { hide: true, body: Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 100 })) }) },
    },
    async (request, reply) => {
      const s = await session(request);
      if (s) {
        requireCsrf(s, request.body.csrf);
        await endSession(db, request.cookies[SESSION_COOKIE] ?? '');
      }
      reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure });
      return reply.code(303).redirect('/me');
    },
  );

  app.get('/me/push.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(PUSH_SCRIPT),
  );
  app.get('/me/sw.js', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('service-worker-allowed', '/me/')
      .send(SERVICE_WORKER),
  );
}
