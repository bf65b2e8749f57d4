import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntries } from '../../src/shared/errors.js';
import { openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import {
  AdminClient,
  CheckoutClient,
  PosClient,
  createArticle,
  getSortiment,
} from '../../clients/typescript/src/index.js';
import { ADMIN_TOKEN, type TestApp, startApp } from '../support/harness.js';

// Its screenshots are looked at, not kept in docs/.
const SHOTS = screenshotDir('.test-cache', '.test-cache');

// Swagger UI reads an OpenAPI 3.1 document through ApiDOM, which walks the whole document before
// the first operation shows, and again for an operation opened by its link. On a 2-core machine,
// with the 1.2 MB document, once the page had loaded that took 4 to 6 s and 8 to 10 s alone, 9 and
// 18.5 s beside the type check, the lint and two other browser files, and more than Playwright's
// 30 s default in one slow CI run; the page's copy with repeated parts written once takes about
// three quarters of that (docs/performance.md, "The API reference page's first operation").
const FIRST_RENDER_MS = 90_000;
const PAGE_TEST_MS = 150_000;

// The page depends on no database; one run on the embedded database shows it.
describe('the API reference page in a browser', { timeout: PAGE_TEST_MS }, () => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startApp('pglite');
    baseUrl = await serve(t);
    browser = await openChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the reference pages and their files send the headers of every page: scripts of this origin only, never framed or sniffed', async () => {
    for (const path of ['/docs', '/docs/', '/docs/errors', '/docs/static/index.html', '/docs/json']) {
      const res = await fetch(new URL(path, baseUrl), { redirect: 'manual' });
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
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
    await page.locator('.opblock').first().waitFor({ timeout: FIRST_RENDER_MS });
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
    // The page renders the sections as they are scrolled to (and drops those scrolled past): the
    // first is read on the first screen, the others while scrolling to the end.
    const tags = await page.locator('.opblock-tag').allInnerTexts();
    const seen = new Set(tags);
    for (let i = 0; i < 60 && ![...seen].some((t) => t.includes('Health probes')); i++) {
      await page.mouse.wheel(0, 2000);
      await page.waitForTimeout(100);
      for (const t of await page.locator('.opblock-tag').allInnerTexts()) seen.add(t);
    }
    expect(tags[0]).toContain('POS: merchants');
    expect([...seen].join('\n')).toContain('Health probes');
    expect(outside).toEqual([]);

    const link = page.locator('.info a', { hasText: 'error catalog' });
    expect(await link.getAttribute('href')).toBe('/docs/errors');
    await page.goto(new URL('/docs/errors', baseUrl).href);
    await page.screenshot({ path: `${SHOTS}/docs-errors.png` });
    expect(await page.locator('tbody tr').count()).toBe(catalogEntries().length);
    await page.close();
  });
});

describe('signing an order on /docs', { timeout: PAGE_TEST_MS }, () => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startApp('pglite');
    // The page signs in the browser with the machine's clock: the app starts there too, whatever
    // TEST_CLOCK_START says.
    t.clock.ms = Date.now();
    baseUrl = await serve(t);
    browser = await openChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an integrator pastes the security secret, tries an order and it is signed in the browser and booked; the secret never leaves the page', async () => {
    const admin = new AdminClient({ baseUrl, token: ADMIN_TOKEN });
    const merchant = `docs-${Date.now()}`;
    const { devKey } = await admin.createDevKey('Till vendor');
    await admin.createMerchant({ serviceUserName: merchant, displayName: 'Docs', currency: 'EUR' });
    const { brandId } = await admin.createBrand(merchant, 'Docs');
    const pos = new PosClient({ baseUrl, devKey });
    const outlet = await pos.createOutlet(merchant, brandId, { Name: 'Main' });
    const terminal = await pos.registerTerminal({
      serviceUserName: merchant,
      outletId: outlet.Id,
      instanceName: 'T1',
    });
    await admin.activateTerminal(terminal.trackingUnitId);
    const till = pos.forTerminal(terminal);
    const menu = await getSortiment({
      client: till.client,
      query: { thirdPartySortimentIdentifier: 'web' },
      throwOnError: true,
    });
    await createArticle({
      client: till.client,
      path: { serviceSortimentId: menu.data.serviceSortimentId, PLU: '3001' },
      body: {
        PLU: '3001',
        Name: [{ lang: 'de', val: 'Apfelkuchen' }],
        Prices: [{ Value: 3.9, CurrencyIso: 'EUR' }],
        VatInPercent: 19,
        TakeawayVatInPercent: 7,
      },
      throwOnError: true,
    });
    const card = `CARD-${merchant}`;
    await admin.linkCard((await admin.createProfile(merchant, {})).id, { tokenId: card, tokenType: 0 });
    const { accessToken, securitySecret } = await admin.createCheckoutClient(merchant, 'Web shop');
    await new CheckoutClient({ baseUrl, accessToken, securitySecret }).topUp(card, {
      amount: 2000,
      currency: 'EUR',
    });

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const leaks: string[] = [];
    page.on('request', (request) => {
      const seen = `${request.url()} ${JSON.stringify(request.headers())} ${request.postData() ?? ''}`;
      if (seen.includes(securitySecret)) leaks.push(request.url());
    });
    const logs: string[] = [];
    page.on('console', (m) => logs.push(`${m.type()} ${m.text()}`));
    page.on('pageerror', (e) => logs.push(`error ${e.message}`));
    await page.goto(`${baseUrl}/docs#/Checkout/createOrder`);
    await page
      .locator('.opblock')
      .first()
      .waitFor({ timeout: FIRST_RENDER_MS })
      .catch((e: Error) => {
        throw new Error(`${e.message}\nThe page logged:\n${logs.join('\n')}`);
      });
    await page.locator('#pc-signer input').fill(securitySecret);

    await page.locator('.btn.authorize').first().click();
    const scheme = page.locator('.auth-container', { hasText: 'CheckoutToken' });
    await scheme.locator('input').fill(`Token ${accessToken}`);
    await scheme.locator('button.authorize').click();
    await page.locator('.modal-ux button.close-modal').click();

    // The checkout operations, found as an integrator finds them: by the filter box.
    await page.locator('.operation-filter-input').fill('Checkout');
    const operation = page.locator('[id="operations-Checkout-createOrder"]');
    await operation.waitFor({ state: 'attached', timeout: 60_000 });
    await operation.scrollIntoViewIfNeeded();
    if (!(await operation.locator('.try-out__btn').isVisible()))
      await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    for (const [name, value] of [
      ['Idempotency-Key', `docs-${merchant}`],
      ['Timestamp', '0'],
      ['Security-Token', '0'.repeat(64)],
    ] as const) {
      await operation.locator(`tr[data-param-name="${name}"] input`).fill(value);
    }
    const basketId = crypto.randomUUID();
    await operation.locator('.body-param textarea').fill(
      JSON.stringify({
        orderTimestamp: new Date().toISOString(),
        basketId,
        profileReference: card,
        menuId: menu.data.menuId,
        positions: [{ positionId: 1, productPlu: '3001', quantity: 2 }],
        consumptionMode: 'Takeaway',
        currency: 'EUR',
        totalGross: 780,
        balance: { requestCharge: true },
      }),
    );
    await operation.locator('.btn.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    await page.screenshot({ path: `${SHOTS}/docs-signed-order.png`, fullPage: false });
    expect((await status.innerText()).trim()).toMatch(/^20[01]/);
    expect(leaks).toEqual([]);
    const booked = await new CheckoutClient({ baseUrl, accessToken, securitySecret }).readOrder(basketId);
    expect(booked.balance).toMatchObject({ oldAmount: 2000, newAmount: 1220 });
    expect(logs.filter((line) => line.startsWith('error '))).toEqual([]);
    await page.close();
  });
});
