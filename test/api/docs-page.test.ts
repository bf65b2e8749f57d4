import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntries } from '../../src/shared/errors.js';
import { type TestApp, startApp } from '../support/harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// The page depends on no database; one run on the embedded database shows it.
describe('the API reference page in a browser', () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startApp('pglite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    mkdirSync(resolve('.test-cache'), { recursive: true });
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
    await page.screenshot({ path: resolve('.test-cache/docs-page.png') });

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
    await page.screenshot({ path: resolve('.test-cache/docs-errors.png') });
    expect(await page.locator('tbody tr').count()).toBe(catalogEntries().length);
    await page.close();
  });
});
