import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignIn, profilesByEmail } from '../../src/notifications/consumer-auth.store.js';
import { openChromium, serve, type TestBrowser } from '../support/browser.js';
import { type TestApp, type Terminal, setupTerminal, startApp } from '../support/harness.js';
import { profileWithCard, receiptBasket, uniqueId, uploadAndGrant } from './support.js';

const SHOTS = resolve('.test-cache', 'page-csp');

/** Everything the browser reports that would mean the policy broke something: errors and CSP refusals. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    // The browser's own request for /favicon.ico (the pages have none) is not the pages' doing.
    if (m.location().url.endsWith('/favicon.ico')) return;
    if (m.type() === 'error' || /Content Security Policy|Refused to/i.test(m.text())) {
      problems.push(`${m.type()}: ${m.text()} (${m.location().url})`);
    }
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  return problems;
}

// The pages read what the database holds; one run on the embedded database drives them in a browser.
describe('the consumer pages under their Content-Security-Policy, in a browser', () => {
  let t: TestApp;
  let term: Terminal;
  let browser: TestBrowser;
  let baseUrl: string;
  let email: string;

  beforeAll(async () => {
    t = await startApp('pglite');
    baseUrl = await serve(t);
    (t.config as { publicBaseUrl: string }).publicBaseUrl = baseUrl;
    term = await setupTerminal(t);
    const holder = await profileWithCard(t, term, { language: 'en', fullName: 'Anna Berg' });
    email = holder.email;
    await uploadAndGrant(term, uniqueId('csp'), { consumerIdentToken: holder.cardId }, receiptBasket(true));
    browser = await openChromium();
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signIn(page: Page): Promise<void> {
    const [profile] = await profilesByEmail(t.database.db, email);
    if (!profile) throw new Error('no profile');
    const token = await createSignIn(t.database.db, profile, t.clock.nowMs());
    await page.goto(`${baseUrl}/me/sign-in/${token}`);
    await page.getByRole('heading', { name: 'My account' }).waitFor();
  }

  it('/me cannot be put in a frame by another page: the browser refuses it', async () => {
    const page = await browser.newPage();
    const refusals: string[] = [];
    page.on('console', (m) => refusals.push(m.text()));
    // Another site's page (here an opaque origin) framing the portal.
    await page.setContent(
      `<h1>Win a prize</h1><iframe id="f" src="${baseUrl}/me" width="600" height="400"></iframe>`,
    );
    await page.waitForTimeout(500);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    const framedText = frame
      ? await frame.evaluate<string>("document.body ? document.body.innerText : ''").catch(() => '')
      : '';
    expect(framedText).not.toContain('Sign in');
    expect(refusals.join('\n')).toMatch(/frame-ancestors|Refused to (display|frame)/);
    await page.close();
  });

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 900 },
    { name: '390', width: 390, height: 844 },
  ]) {
    it(`the sign-in page, /me and its receipt work at ${viewport.name} width with no CSP refusal or script error`, async () => {
      const context = await browser.newContext({ viewport, locale: 'en-GB' });
      const page = await context.newPage();
      const problems = watch(page);
      await page.goto(`${baseUrl}/me`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      // The style sheet is a file and applies: the page's grey background, not the browser's white.
      expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe(
        'rgb(244, 244, 244)',
      );
      await page.getByLabel('E-mail address').fill('someone@example.org');
      await page.getByRole('button', { name: 'Send sign-in link' }).click();
      await page.getByText('a sign-in link is on its way').waitFor();

      await signIn(page);
      // The push script ran (it shows its button or its status), under script-src 'self'.
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: `${SHOTS}/me-${viewport.name}.png`, fullPage: true });
      // A form still posts under form-action 'self'.
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();

      await page.locator('a', { hasText: 'Receipt' }).first().click();
      await page.getByRole('heading', { name: term.serviceUserName }).waitFor();
      expect(await page.locator('main').innerText()).toContain('Cappuccino');
      expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe(
        'rgb(244, 244, 244)',
      );
      await page.screenshot({ path: `${SHOTS}/receipt-${viewport.name}.png`, fullPage: true });
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
