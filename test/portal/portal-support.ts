import type { LightMyRequestResponse } from 'fastify';
import type { Locator, Page } from 'playwright-core';
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

/** A portal user as the admin interface adds one to a merchant: owner unless `role` says staff. */
export interface NewPortalUser {
  readonly email: string;
  readonly password: string;
  readonly role?: 'owner' | 'staff';
  readonly lang?: string;
}

/** Adds the portal user to the merchant of the service user `serviceUserName` (201). */
export async function addPortalUser(t: TestApp, serviceUserName: string, user: NewPortalUser): Promise<void> {
  const made = await t.admin('POST', `/merchants/${encodeURIComponent(serviceUserName)}/portalUsers`, user);
  expect(made.statusCode, made.body).toBe(201);
}

/** Adds the portal user to the merchant of the service user `serviceUserName` and signs it in. */
export async function newPortalSession(
  t: TestApp,
  serviceUserName: string,
  user: NewPortalUser,
): Promise<PortalSession> {
  await addPortalUser(t, serviceUserName, user);
  return portalSession(t, user.email, user.password);
}

/**
 * An owner (German) and a staff member of the merchant of the service user `serviceUserName`, both
 * with `password`, added and signed in.
 */
export async function ownerAndStaff(
  t: TestApp,
  serviceUserName: string,
  emails: { owner: string; staff: string },
  password: string,
): Promise<{ owner: PortalSession; staff: PortalSession }> {
  const owner = await newPortalSession(t, serviceUserName, { email: emails.owner, password, lang: 'de' });
  const staff = await newPortalSession(t, serviceUserName, { email: emails.staff, password, role: 'staff' });
  return { owner, staff };
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

/** A portal page's HTML as the session's browser gets it. */
export function portalPage(t: TestApp, s: { cookie: string }, url: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
}

/** A basket as a till sends it, timed now: 3 cappuccinos (PLU 1001) and a croissant. */
export function basket(nowMs: number) {
  return {
    Timestamp: new Date(nowMs).toISOString().replace('Z', '+00:00'),
    HasDiscounts: false,
    CurrencyISO: 'EUR',
    TotalValue: 12.4,
    Positions: [
      { PositionId: 1, ProductId: '1001', Unit: 0, Amount: 3, CurrentGrossPrice: 3.2 },
      { PositionId: 2, ProductId: '2001', Unit: 0, Amount: 1, CurrentGrossPrice: 2.8 },
    ],
  };
}

export async function signIn(
  page: Page,
  baseUrl: string,
  who: { email: string; password: string },
): Promise<void> {
  await page.goto(`${baseUrl}/portal/signin`);
  await page.getByLabel(/E-mail|E-Mail/).fill(who.email);
  await page.getByLabel(/Password|Passwort/).fill(who.password);
  await Promise.all([
    page.waitForURL(/\/portal\/dashboard/),
    page.getByRole('button', { name: /Sign in|Anmelden/ }).click(),
  ]);
}

/** The one visible control with this label (the campaign and scheme forms keep other types' fields hidden). */
export function field(scope: Page | Locator, label: string): Locator {
  return scope.getByLabel(label, { exact: true }).filter({ visible: true });
}
