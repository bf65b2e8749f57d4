import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../support/harness.js';

/** A signed-in portal session: its cookie and CSRF token. */
export interface PortalSession {
  readonly cookie: string;
  readonly csrf: string;
}

export function portalSignIn(t: TestApp, email: string, password: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'POST', url: '/portal/api/v1/session', payload: { email, password } });
}

export async function portalSession(t: TestApp, email: string, password: string): Promise<PortalSession> {
  const res = await portalSignIn(t, email, password);
  expect(res.statusCode).toBe(200);
  return {
    cookie: String(res.headers['set-cookie']).split(';')[0] ?? '',
    csrf: (res.json() as { csrfToken: string }).csrfToken,
  };
}

/** A portal API call with the session's cookie, and its CSRF token when it has one. */
export function portalCall(
  t: TestApp,
  s: { cookie: string; csrf?: string },
  method: string,
  url: string,
  payload?: object,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: method as 'GET',
    url: `/portal/api/v1${url}`,
    headers: { cookie: s.cookie, ...(s.csrf ? { 'x-csrf-token': s.csrf } : {}) },
    ...(payload ? { payload } : {}),
  });
}
