import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { signIn } from './portal-support.js';
import { tierScheme } from '../loyalty/tier-scheme.js';

const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');
const OWNER = { email: 'owner@cafe-tiers.test', password: 'tier-limits-2026' };

/** A campaign limited to status tiers on its page (docs/decisions.md, "Status tiers"). */
describe.each(databases)('a campaign limited to status tiers in the portal (%s)', (kind) => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl: string;
  let merchant: string;
  const shots = kind === 'pglite';

  beforeAll(async () => {
    t = await startApp(kind);
    baseUrl = await serve(t);
    browser = await openChromium();
    const till = await setupTerminal(t);
    merchant = `/merchants/${encodeURIComponent(till.serviceUserName)}`;
    expect((await t.admin('POST', `${merchant}/portalUsers`, OWNER)).statusCode).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the campaign page names the tiers and the scheme, in English and German, at 390 px; a campaign without a limit shows no card', async () => {
    const s = await t.admin('POST', `${merchant}/loyaltySchemes`, tierScheme());
    const schemeId = (s.json() as { id: number }).id;
    const body = { name: 'Gold coffee', type: 'bill', discount: { amount: 1 } };
    const limited = await t.admin('POST', `${merchant}/campaigns`, {
      ...body,
      tiers: { schemeId, names: ['Silver', 'Gold'] },
    });
    expect(limited.statusCode, limited.body).toBe(201);
    const plain = await t.admin('POST', `${merchant}/campaigns`, { ...body, name: 'Everyone' });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns/${(limited.json() as { id: number }).id}`);
    const card = page.locator('[data-tier-limit]');
    await expect
      .poll(() => card.innerText())
      .toContain('Only for customers whose status tier in “Coffee card” is Silver or Gold.');
    if (shots) await page.screenshot({ path: `${SHOTS}/campaign-page-tiers.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await Promise.all([page.waitForEvent('load'), page.locator('select[data-lang]').selectOption('de')]);
    expect(await card.innerText()).toContain(
      'Nur für Kundinnen und Kunden mit der Statusstufe Silver oder Gold in „Coffee card“.',
    );
    if (shots) await card.screenshot({ path: `${SHOTS}/campaign-page-tiers-de-390.png` });
    await Promise.all([page.waitForEvent('load'), page.locator('select[data-lang]').selectOption('en')]);
    await page.goto(`${baseUrl}/portal/campaigns/${(plain.json() as { id: number }).id}`);
    await expect.poll(() => page.locator('h1').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-tier-limit]').count()).toBe(0);
    await context.close();
  }, 90_000);
});
