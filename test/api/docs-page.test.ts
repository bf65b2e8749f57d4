import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntries } from '../../src/shared/errors.js';
import { launchChromium, screenshotDir, serve } from '../support/browser.js';
import { type TestApp, startApp } from '../support/harness.js';

// Its screenshots are looked at, not kept in docs/.
const SHOTS = screenshotDir('.test-cache', '.test-cache');

// The page depends on no database; one run on the embedded database shows it.
describe('the API reference page in a browser', () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startApp('pglite');
    baseUrl = await serve(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('/docs names the product, shows operations on the first screen and links the error catalog', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1') return route.continue();
      outside.push(url.href);
      return route.abort();
    });
    await page.goto(`${baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor();
    await page.screenshot({ path: `${SHOTS}/docs-page.png` });

    expect(await page.title()).toBe('Punchcard API reference');
    expect(await page.locator('.info .title').innerText()).toContain('Punchcard API');
    // The stock top bar's box with the document URL is gone.
    expect(await page.locator('.download-url-wrapper').isVisible()).toBe(false);
    expect(await page.getByText('/docs/json').isVisible()).toBe(false);
    // The first operation is on the first screen, under the POS tags.
    const first = await page.locator('.opblock').first().boundingBox();
    expect(first).not.toBeNull();
    expect(first?.y ?? Infinity).toBeLessThan(800);
    const tags = await page.locator('.opblock-tag').allInnerTexts();
    expect(tags[0]).toContain('POS: merchants');
    expect(tags.join('\n')).toContain('Health probes');
    expect(outside).toEqual([]);

    const link = page.locator('.info a', { hasText: 'error catalog' });
    expect(await link.getAttribute('href')).toBe('/docs/errors');
    await page.goto(new URL('/docs/errors', baseUrl).href);
    await page.screenshot({ path: `${SHOTS}/docs-errors.png` });
    expect(await page.locator('tbody tr').count()).toBe(catalogEntries().length);
    await page.close();
  });
});
