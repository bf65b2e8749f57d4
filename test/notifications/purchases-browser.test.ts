import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsWidth, openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { type TestApp, startApp } from '../support/harness.js';
import { type PurchaseHistory, purchaseHistory, signedIn } from './purchase-history.js';

// The pictures of docs/consumer.md with PORTAL_SCREENSHOTS=1.
const SHOTS = screenshotDir('docs', '.test-cache');

// The pages read what the database holds; one run on the embedded database drives them in a browser.
describe("a consumer's weeks of purchases on /me and the receipt, in a browser", () => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl: string;
  let h: PurchaseHistory;

  beforeAll(async () => {
    t = await startApp('pglite');
    baseUrl = await serve(t);
    h = await purchaseHistory(t);
    browser = await openChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [name, width, height] of [
    ['phone', 390, 844],
    ['desktop', 1280, 900],
  ] as const) {
    it(`at ${width} px: baskets and orders newest first, the movements named, the refund on the order and on its receipt`, async () => {
      const context = await browser.newContext({ viewport: { width, height }, locale: 'en-GB' });
      const cookie = (await signedIn(t, h.email)).split('=');
      await context.addCookies([{ name: cookie[0] ?? '', value: cookie[1] ?? '', url: baseUrl }]);
      const page = await context.newPage();
      await page.goto(`${baseUrl}/me`);
      await page.getByRole('heading', { name: 'My account' }).waitFor();
      await fitsWidth(page);
      const purchases = page.locator('table.purchases tr');
      expect(await purchases.count()).toBe(8);
      expect(await purchases.nth(0).innerText()).toContain('Refunded on');
      expect(await purchases.nth(0).innerText()).toContain('Web shop');
      expect(await page.locator('table.movements').innerText()).toContain(
        'Paid at the till · Station square',
      );
      await page.screenshot({
        path: `${SHOTS}/consumer-portal${name === 'desktop' ? '-desktop' : ''}.png`,
        fullPage: true,
      });

      await purchases.nth(0).getByRole('link', { name: 'Receipt' }).click();
      await page.getByRole('heading', { name: h.shop.serviceUserName }).waitFor();
      await fitsWidth(page);
      expect(await page.getByRole('status').innerText()).toMatch(
        /^Refunded on .*: €12\.99 went back to the balance\.$/,
      );
      if (name === 'phone') await page.screenshot({ path: `${SHOTS}/receipt-refunded.png`, fullPage: true });

      // The partly returned basket's receipt: the return, its value and the points it took back.
      await page.goBack();
      const returned = h.baskets.length - 1 - h.baskets.indexOf(h.returnedBasket);
      await purchases
        .nth(2 + returned)
        .getByRole('link', { name: 'Receipt' })
        .click();
      await page.getByRole('heading', { name: 'Returns and refunds' }).waitFor();
      await fitsWidth(page);
      const receipt = await page.locator('main').innerText();
      expect(receipt).toContain('Returned: 1 × Cappuccino');
      expect(receipt).toContain('Coffee points: −');
      await page.screenshot({
        path: `${SHOTS}/receipt${name === 'desktop' ? '-desktop' : ''}.png`,
        fullPage: true,
      });
      await context.close();
    });
  }

  it('at 390 px in German: each balance movement keeps its date on one line', async () => {
    // The profile reads German (its language decides the page's); 26.12.2026 has no space to break at.
    await t.database.db
      .updateTable('profiles')
      .set({ language: 'de' })
      .where('id', '=', h.profileId)
      .execute();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const cookie = (await signedIn(t, h.email)).split('=');
    await context.addCookies([{ name: cookie[0] ?? '', value: cookie[1] ?? '', url: baseUrl }]);
    const page = await context.newPage();
    await page.goto(`${baseUrl}/me`);
    await page.getByRole('heading', { name: 'Mein Konto' }).waitFor();
    await fitsWidth(page);
    // The line boxes of each date's text (a string run in the page: the tests have no DOM types).
    const dates =
      (await page.evaluate(`[...document.querySelectorAll('table.movements td:first-child')].map((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      return { text: cell.textContent.trim(), lines: range.getClientRects().length };
    })`)) as { text: string; lines: number }[];
    expect(dates.length).toBe(6);
    for (const d of dates)
      expect(d, d.text).toEqual({ text: expect.stringMatching(/^\d{2}\.\d{2}\.\d{4}$/), lines: 1 });
    await context.close();
  });

  it('at 390 px in German: the older balance movements a page at a time, each with the balance after it', async () => {
    // Twenty more online top-ups, a day apart: the first six movements move to a second page.
    for (let i = 1; i <= 20; i++) {
      t.clock.advance(86_400_000);
      const r = await h.shop.call('POST', `/api/v1/profiles/${h.card}/topUps`, {
        amount: 450 + i,
        currency: 'EUR',
      });
      expect(r.statusCode, r.body).toBe(201);
    }
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const cookie = (await signedIn(t, h.email)).split('=');
    await context.addCookies([{ name: cookie[0] ?? '', value: cookie[1] ?? '', url: baseUrl }]);
    const page = await context.newPage();
    await page.goto(`${baseUrl}/me`);
    const rows = page.locator('table.movements tr');
    expect(await rows.count()).toBe(20);
    // The newest movement's balance after it is the balance above the list.
    const balance = await page.locator('h2:has-text("Guthaben") + p').innerText();
    expect(await rows.nth(0).innerText()).toContain(`Guthaben danach: ${balance}`);
    await page.getByRole('link', { name: 'Ältere Bewegungen' }).click();
    await page.getByRole('link', { name: 'Neueste Bewegungen' }).waitFor();
    await fitsWidth(page);
    expect(await rows.count()).toBe(6);
    expect(await rows.nth(5).innerText()).toMatch(/Aufladung\s+30,00\s€\s+Guthaben danach: 30,00\s€/);
    await page.locator('#movements').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/consumer-movements-older.png` });

    // Up to the day of the till payment: both lists end there, the form keeps the day.
    const paidOn = (
      await rows.filter({ hasText: 'An der Kasse bezahlt' }).locator('td').first().innerText()
    ).trim();
    const [dd, mm, yyyy] = paidOn.split('.');
    await page.getByLabel('Bewegungen und Einkäufe bis').fill(`${yyyy}-${mm}-${dd}`);
    await page.getByRole('button', { name: 'Anzeigen' }).click();
    await page.getByRole('link', { name: 'Bis heute' }).waitFor();
    await fitsWidth(page);
    expect(await rows.nth(0).innerText()).toContain('An der Kasse bezahlt');
    expect(await rows.count()).toBe(3);
    const sold = await page.locator('table.purchases tr td:first-child').allInnerTexts();
    expect(sold.length).toBeGreaterThan(0);
    const isoDay = (text: string) => text.replace(/^(\d{2})\.(\d{2})\.(\d{4})[\s\S]*$/, '$3-$2-$1');
    for (const text of sold) expect(isoDay(text) <= `${yyyy}-${mm}-${dd}`, text).toBe(true);
    await page.locator('form.until').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/consumer-until.png` });
    await context.close();
  });
});
