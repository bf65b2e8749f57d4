import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type CheckoutClient, orderBody, setupCheckout } from '../checkout/checkout-support.js';
import {
  listFits,
  openChromium,
  phoneLabelOf,
  screenshotDir,
  serve,
  type TestBrowser,
} from '../support/browser.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { signIn } from './portal-support.js';

const OWNER = { email: 'owner@finding.test', password: 'a-long-enough-password' };
const SHOTS = screenshotDir('docs/portal', '.test-cache/screenshots');

describe.each(databases)('finding a bill and a customer in a browser (%s)', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let browser: TestBrowser;
  let baseUrl: string;
  let profile: { id: number; card: string };
  const shots = kind === 'pglite';

  beforeAll(async () => {
    t = await startApp(kind);
    c = await setupCheckout(t);
    baseUrl = await serve(t);
    browser = await openChromium();
    expect(
      (await t.admin('POST', `/merchants/${encodeURIComponent(c.serviceUserName)}/portalUsers`, OWNER))
        .statusCode,
    ).toBe(201);
    profile = await c.profile({ balance: 2_000 });
    expect((await tokens(c.term).add(profile.card, '5')).statusCode).toBe(200);
    const body = orderBody(c, profile.card, [['1001', 2]], {
      totalGross: 700,
      balance: { requestCharge: true },
    });
    expect((await c.order(body)).statusCode).toBe(200);
    for (let i = 1; i <= 30; i += 1) {
      t.clock.ms += 600_000;
      const id = `K-${i}`;
      const up = await c.term.pos('POST', `/baskets/${id}`, {
        body: {
          Timestamp: new Date(t.clock.nowMs()).toISOString().replace('Z', '+00:00'),
          HasDiscounts: false,
          CurrencyISO: 'EUR',
          BillNumber: `R-${2000 + i}`,
          Positions: [
            {
              PositionId: 1,
              ProductId: '1001',
              ProductName: 'Cappuccino',
              Unit: 0,
              Amount: 2,
              CurrentGrossPrice: 3.5,
            },
            {
              PositionId: 2,
              ProductId: '1002',
              ProductName: 'Croissant',
              Unit: 0,
              Amount: 1,
              CurrentGrossPrice: 2.2,
            },
          ],
        },
        ...(i % 3 === 0 ? { query: { consumerIdentToken: profile.card } } : {}),
      });
      expect(up.statusCode, up.body).toBe(200);
      expect((await c.term.pos('POST', `/baskets/${id}/grant`, { sign: id })).statusCode).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const width of [1280, 390]) {
    it(`an owner finds a bill by its number and opens it, then its card and the card's holder (${width} px)`, async () => {
      const context = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 900 } });
      const page = await context.newPage();
      await signIn(page, baseUrl, OWNER);
      await page.goto(`${baseUrl}/portal/baskets`);
      await page.getByLabel('Bill number or basket id').fill('R-2012');
      await Promise.all([
        page.waitForURL(/number=R-2012/),
        page.getByLabel('Bill number or basket id').press('Enter'),
      ]);
      expect(await page.locator('#basket-list tbody tr').count()).toBe(1);
      // The bill's total, rewards and state in view at either width; on a phone under their names.
      await listFits(page, '#basket-list');
      const billCells = page.locator('#basket-list tbody tr').first().locator('td');
      expect(await phoneLabelOf(billCells.nth(5))).toBe(width === 390 ? 'Total' : '');
      const suffix = width === 390 ? '-phone' : '';
      if (shots) await page.screenshot({ path: `${SHOTS}/baskets${suffix}.png`, fullPage: true });
      await page.getByRole('link', { name: 'R-2012' }).click();
      await page.locator('#basket-positions').waitFor();
      expect(await page.locator('#bill-number').innerText()).toBe('R-2012');
      expect(await page.locator('#basket-terminal').innerText()).toBe('Till 1');
      expect(await page.locator('#basket-positions').innerText()).toContain('Cappuccino');
      await listFits(page, '#basket-positions');
      const line = page.locator('#basket-positions tbody tr').first().locator('td');
      expect(await phoneLabelOf(line.nth(4))).toBe(width === 390 ? 'Line' : '');
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
      if (shots) await page.screenshot({ path: `${SHOTS}/basket${suffix}.png`, fullPage: true });
      await page.getByRole('link', { name: profile.card }).click();
      await page.locator('#balance-history').waitFor();
      expect(await page.locator('#card-holder').innerText()).toBe('Ada Lovelace');
      // Its granted baskets and the order paid from its balance, listed with its shop.
      expect(await page.locator('#card-purchases').innerText()).toBe('11');
      expect(await page.locator('#card-baskets').innerText()).toContain('Web shop');
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
      if (shots) await page.screenshot({ path: `${SHOTS}/card-customer${suffix}.png`, fullPage: true });
      // The order's number (the shop's UUID here) stays on one line, so that its row is about as
      // tall as a basket's (it was twice as tall, the order's id broken over six lines); its time
      // opens the order's page.
      const key = await page.locator('#card-baskets tr.card-order .short-key').boundingBox();
      expect(key?.height ?? Infinity).toBeLessThan(30);
      const orderRow = await page.locator('#card-baskets tr.card-order').boundingBox();
      const basketRow = await page.locator('#card-baskets tbody tr:not(.card-order)').first().boundingBox();
      expect(orderRow?.height ?? Infinity).toBeLessThanOrEqual(1.4 * (basketRow?.height ?? 0));
      // The purchases fit the screen: nothing of the list is hidden behind a sideways scroll.
      expect(await page.locator('#card-baskets').evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
      // So does its balance history: every movement's amount and the balance after it.
      await listFits(page, '#balance-history');
      await Promise.all([
        page.waitForURL(/\/portal\/orders\/ord_/),
        page.locator('#card-baskets tr.card-order a').click(),
      ]);
      expect(await page.locator('#order-charged').innerText()).toContain('7.00');
      await page.goBack();
      await page.locator('#balance-history').waitFor();
      await page.getByRole('link', { name: 'Ada Lovelace' }).click();
      await page.locator('#profile-cards').waitFor();
      expect(await page.locator('#profile-balance').innerText()).toBe('€18.00');
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
      if (shots) await page.screenshot({ path: `${SHOTS}/profile${suffix}.png`, fullPage: true });
      await context.close();
    }, 60_000);
  }
});
