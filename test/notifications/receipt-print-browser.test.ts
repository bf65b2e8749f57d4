import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsWidth, openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { type TestApp, startApp } from '../support/harness.js';
import { type PurchaseHistory, RECEIPT_DETAILS, purchaseHistory } from './purchase-history.js';

// The pictures of docs/consumer.md with PORTAL_SCREENSHOTS=1.
const SHOTS = screenshotDir('docs', '.test-cache');

/** CSS pixels per millimetre (96 per inch). */
const MM = 96 / 25.4;

/** The pages of a PDF Chromium printed (each page object says `/Type /Page`). */
function pdfPages(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
}

// docs/decisions.md, "Receipts a shop can hand out": the receipt a shop hands out, on a screen and
// on paper (an A4 page, an 80 mm receipt printer's roll). The embedded database is enough.
describe('the receipt on a screen and printed, in a browser', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl: string;
  let h: PurchaseHistory;
  let url: string;

  beforeAll(async () => {
    t = await startApp('pglite');
    baseUrl = await serve(t);
    h = await purchaseHistory(t);
    const row = await t.database.db
      .selectFrom('baskets')
      .select('grant_result')
      .where('tracking_unit_id', '=', h.station.trackingUnitId)
      .where('basket_id', '=', h.paidBasket)
      .executeTakeFirstOrThrow();
    url = `${baseUrl}/receipts/${row.grant_result?.receiptId ?? ''}?lang=en`;
    browser = await openChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(width: number, height: number): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width, height }, locale: 'en-GB' });
    const page = await context.newPage();
    // The pages' policy allows no inline script or style: a violation would show here.
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(url);
    await page.getByRole('heading', { name: h.shop.serviceUserName }).waitFor();
    expect(violations).toEqual([]);
    return { context, page };
  }

  /** What a shop must be able to hand out: who issued it, the bill number, the lines, VAT, payment. */
  async function expectContent(page: Page): Promise<void> {
    const text = await page.locator('main').innerText();
    expect(text).toContain(RECEIPT_DETAILS.legalName);
    expect(text).toContain('Hauptstraße 1\n10115 Berlin');
    expect(text).toContain(`VAT ID: ${RECEIPT_DETAILS.taxNumber}`);
    expect(text).toContain(`Bill no.: ${h.paidBasket}`);
    expect(text).toContain('Store: Station square, Bahnhofplatz 1, 10115 Berlin');
    expect(text).toContain('Cappuccino');
    expect(text).toMatch(/Paid from balance\s+€5\.00/);
    expect(text).toMatch(/Paid otherwise\s+€4\.20/);
    expect(text).toMatch(/19\u00a0%\s+€5\.88\s+€1\.12\s+€7\.00/);
  }

  for (const [name, width, height] of [
    ['desktop', 1280, 900],
    ['phone', 390, 844],
  ] as const) {
    it(`on a screen at ${width} px: everything a shop hands out, nothing sticking out sideways`, async () => {
      const { context, page } = await open(width, height);
      await fitsWidth(page);
      await expectContent(page);
      if (name === 'phone') await page.screenshot({ path: `${SHOTS}/receipt-paid.png`, fullPage: true });
      await context.close();
    });
  }

  it('printed on A4: one page, the download button left off, nothing sticking out sideways', async () => {
    // The printable width of A4 (210 mm) within the print style's 12 mm margins.
    const { context, page } = await open(Math.floor((210 - 24) * MM), Math.floor((297 - 24) * MM));
    await page.emulateMedia({ media: 'print' });
    await fitsWidth(page);
    await expectContent(page);
    expect(await page.getByRole('link', { name: 'Download the bill (PDF)' }).count()).toBe(0);
    expect(await page.locator('.actions').isVisible()).toBe(false);
    const pdf = await page.pdf({ format: 'A4', preferCSSPageSize: true });
    expect(pdfPages(pdf)).toBe(1);
    await page.screenshot({ path: `${SHOTS}/receipt-print-a4.png`, fullPage: true });
    await context.close();
  });

  it('printed on an 80 mm receipt roll (about 302 px): the narrow layout, nothing sticking out sideways', async () => {
    const { context, page } = await open(Math.round(80 * MM), 1000);
    await page.emulateMedia({ media: 'print' });
    await fitsWidth(page);
    await expectContent(page);
    // The narrow layout: small type, the head centred.
    expect(await page.evaluate('getComputedStyle(document.body).fontSize')).toBe('12px');
    expect(await page.evaluate("getComputedStyle(document.querySelector('h1')).textAlign")).toBe('center');
    const [tableWidth, bodyWidth] = await page.evaluate<[number, number]>(
      "[Math.max(...[...document.querySelectorAll('table')].map((t) => t.scrollWidth)), document.body.clientWidth]",
    );
    expect(tableWidth).toBeLessThanOrEqual(bodyWidth);
    const pdf = await page.pdf({ width: '80mm', height: '400mm', preferCSSPageSize: true });
    expect(pdfPages(pdf)).toBe(1);
    await page.screenshot({ path: `${SHOTS}/receipt-print-80mm.png`, fullPage: true });
    await context.close();
  });
});
