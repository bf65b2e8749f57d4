import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findReceiptOf, posBasketSourceRef } from '../../src/receipts/receipt.store.js';
import { fitsWidth, openChromium, serve, type TestBrowser } from '../support/browser.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { signIn } from './portal-support.js';

const OWNER = { email: 'owner@settings.test', password: 'a-long-enough-password' };

/**
 * docs/decisions.md, "Receipts a shop can hand out": an owner sets in the portal's Settings what the
 * receipts say of the merchant (legal name, address, VAT id), and the receipts show it at once.
 */
describe.each(databases)('the settings form in a browser (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let browser: TestBrowser;
  let baseUrl: string;
  let receiptPath = '';

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    baseUrl = await serve(t);
    browser = await openChromium();
    const u = encodeURIComponent(term.serviceUserName);
    expect((await t.admin('POST', `/merchants/${u}/portalUsers`, OWNER)).statusCode).toBe(201);
    const up = await term.pos('POST', '/baskets/S-1', {
      body: {
        Timestamp: new Date(t.clock.nowMs()).toISOString().replace('Z', '+00:00'),
        HasDiscounts: false,
        CurrencyISO: 'EUR',
        BillNumber: 'R-4711',
        Positions: [
          {
            PositionId: 1,
            ProductId: '1001',
            ProductName: 'Cappuccino',
            Unit: 0,
            Amount: 1,
            CurrentGrossPrice: 3.2,
          },
        ],
      },
    });
    expect(up.statusCode, up.body).toBe(200);
    expect((await term.pos('POST', '/baskets/S-1/grant', { sign: 'S-1' })).statusCode).toBe(200);
    const merchant = await t.database.db
      .selectFrom('merchants')
      .select('id')
      .where('service_user_name', '=', term.serviceUserName)
      .executeTakeFirstOrThrow();
    const receipt = await findReceiptOf(
      t.database.db,
      Number(merchant.id),
      'pos_basket',
      posBasketSourceRef(term.trackingUnitId, 'S-1'),
    );
    receiptPath = `/receipts/${receipt?.id ?? 'missing'}`;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const width of [1280, 390]) {
    it(`an owner fills in the receipt details, saves, sees them kept and on the receipt; a cleared field leaves the receipt (${width} px)`, async () => {
      const context = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 900 } });
      const page = await context.newPage();
      await signIn(page, baseUrl, OWNER);
      await page.goto(`${baseUrl}/portal/settings`);
      await fitsWidth(page);
      const name = `Café Müller GmbH ${width}`;
      await page.getByLabel('Legal name').fill(name);
      await page.getByLabel('Address').fill('Hauptstraße 1\n10115 Berlin');
      // Typed as printed on a letter at phone width: kept as the EU writes it.
      await page.getByLabel('VAT ID').fill(width === 390 ? 'de 123 456 789' : 'DE123456789');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved.');

      await page.reload();
      expect(await page.getByLabel('Legal name').inputValue()).toBe(name);
      expect(await page.getByLabel('Address').inputValue()).toBe('Hauptstraße 1\n10115 Berlin');
      expect(await page.getByLabel('VAT ID').inputValue()).toBe('DE123456789');

      const receipt = await context.newPage();
      await receipt.goto(`${baseUrl}${receiptPath}?lang=en`);
      const text = (await receipt.locator('body').innerText()).replace(/\s+/g, ' ');
      expect(text).toContain(name);
      expect(text).toContain('Hauptstraße 1');
      expect(text).toContain('10115 Berlin');
      expect(text).toContain('DE123456789');

      // Cleared in the form: not on the receipt any more.
      await page.getByLabel('Address').fill('');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved.');
      await receipt.reload();
      const after = (await receipt.locator('body').innerText()).replace(/\s+/g, ' ');
      expect(after).toContain(name);
      expect(after).not.toContain('Hauptstraße 1');
      expect(after).toContain('DE123456789');
      await context.close();
    });
  }

  it('a VAT id the receipt cannot print is refused next to the form, in words, and nothing changes', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/settings`);
    const before = await page.getByLabel('VAT ID').inputValue();
    // The form's own check takes what the service takes (decisions.md: spaces, dots, hyphens, small letters).
    const valid = (value: string) =>
      page.getByLabel('VAT ID').evaluate((el, v) => {
        const input = el as unknown as { value: string; validity: { valid: boolean } };
        input.value = v;
        return input.validity.valid;
      }, value);
    for (const typed of ['BE 0123.456.789', 'NL-1234.56.789-B01', 'atu12345678'])
      expect(await valid(typed), typed).toBe(true);
    for (const typed of ['123 456 789', 'DE 123/456', 'DE 1']) expect(await valid(typed), typed).toBe(false);
    // Without its country prefix: the form's own check says what is wrong.
    await page.getByLabel('VAT ID').fill('123 456 789');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(
      await page
        .getByLabel('VAT ID')
        .evaluate((el) => (el as unknown as { validity: { valid: boolean } }).validity.valid),
    ).toBe(false);
    await page.reload();
    expect(await page.getByLabel('VAT ID').inputValue()).toBe(before);
    await context.close();
  });
});
