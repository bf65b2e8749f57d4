import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Session, sessionOf } from '../portal-users/portal-auth.service.js';
import { AppError } from '../shared/errors.js';

/** The portal's session cookie and CSRF header (docs/decisions.md "Merchant portal"). */
export const SESSION_COOKIE = 'punchcard_portal';
export const CSRF_HEADER = 'x-csrf-token';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in portal user, set by `loadSession`. */
    portal: Session | null;
  }
}

export function readCookie(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) {
      const value = part.slice(i + 1).trim();
      return /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : null;
    }
  }
  return null;
}

/**
 * Set-Cookie of the session: http-only, SameSite=Lax, Secure when the portal is served over https.
 * Its life is given as Max-Age, which the browser counts from the cookie's arrival, so a device
 * whose clock is off by more than the session's life keeps its session (an Expires date alone would
 * be read on that clock); Expires stands beside it for clients without Max-Age.
 */
export function sessionCookie(app: FastifyInstance, token: string | null, expiresAt: Date | null): string {
  const secure = app.ctx.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  const value = token ?? '';
  const expiry = expiresAt
    ? `; Max-Age=${Math.max(0, Math.floor((expiresAt.getTime() - app.ctx.clock.nowMs()) / 1000))}; Expires=${expiresAt.toUTCString()}`
    : '; Max-Age=0';
  return `${SESSION_COOKIE}=${value}; Path=/portal; HttpOnly; SameSite=Lax${secure}${expiry}`;
}

/** Reads the session of the request's cookie into `request.portal` (null when none or expired). */
export function registerSessionLoader(scope: FastifyInstance): void {
  scope.decorateRequest('portal', null);
  scope.addHook('onRequest', async (request) => {
    const token = readCookie(request, SESSION_COOKIE);
    request.portal = token ? await sessionOf(scope.services.accounts, token) : null;
  });
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The signed-in user; 401 / 3002 without one. Changes also need the session's CSRF token (403 / 3003). */
export function requireSession(request: FastifyRequest): Session {
  const session = request.portal;
  if (!session) throw new AppError('portalNotSignedIn');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const sent = request.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || !sameText(sent, session.csrfToken))
      throw new AppError('portalCsrfInvalid');
  }
  return session;
}

/**
 * Campaigns, schemes, cards, balances, users, checkout clients and webhook retries: owners only
 * (403 / 3004); `detail` names what the text of the catalog does not.
 */
export function requireOwner(request: FastifyRequest, detail?: string): Session {
  const session = requireSession(request);
  if (session.role !== 'owner') throw new AppError('portalRoleForbidden', detail);
  return session;
}

export function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
}
