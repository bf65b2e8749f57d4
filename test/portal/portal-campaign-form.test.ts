import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestApp,
  type Terminal,
  databases,
  setupTerminal,
  sortimentIdOf,
  startApp,
} from '../support/harness.js';
import { openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { basket, field, signIn } from './portal-support.js';

const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');
const OWNER = { email: 'owner@cafe-form.test', password: 'form-fields-2026' };

async function dryRun(page: Page): Promise<string[]> {
  // The basket as JSON: the advanced view of the dry run's basket.
  if ((await page.locator('#dry-advanced').getAttribute('open')) === null) {
    await page.locator('#dry-advanced summary').click();
  }
  await page.locator('#dry-basket').fill(JSON.stringify(basket(Date.now())));
  await page.getByRole('button', { name: 'Try it' }).click();
  await page.locator('#dry-result:visible, #dry-run .form-error:visible').first().waitFor();
  const refused = page.locator('#dry-run .form-error');
  if (await refused.isVisible()) return [`refused: ${await refused.innerText()}`];
  return page.locator('#dry-result tbody[data-rewards] tr').allInnerTexts();
}

describe.each(databases)('campaign and loyalty-scheme forms in a browser (%s)', (kind) => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl: string;
  let till: Terminal;
  const shots = kind === 'pglite';

  beforeAll(async () => {
    t = await startApp(kind);
    baseUrl = await serve(t);
    browser = await openChromium();
    till = await setupTerminal(t);
    const users = `/merchants/${encodeURIComponent(till.serviceUserName)}/portalUsers`;
    expect((await t.admin('POST', users, OWNER)).statusCode).toBe(201);
    const sid = await sortimentIdOf(till, `menu-${kind}`);
    const upload = await till.pos('POST', `/sortiments/${sid}/bulkUpload`, {
      query: { changedArticlesOnly: 'false' },
      body: {
        Groups: [{ Id: 'BAKERY', Name: [{ lang: 'en', val: 'Bakery' }] }],
        Articles: [
          {
            PLU: '1001',
            Name: [{ lang: 'en', val: 'Cappuccino' }],
            Prices: [{ Value: 3.2, CurrencyIso: 'EUR' }],
          },
          {
            PLU: '2001',
            GroupId: 'BAKERY',
            Name: [{ lang: 'en', val: 'Croissant' }],
            Prices: [{ Value: 2.8, CurrencyIso: 'EUR' }],
          },
        ],
      },
    });
    expect(upload.statusCode).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an owner builds a product and a bill campaign field by field, tries them, publishes them, and the next POS basket gets both rewards', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);

    // A product campaign: 0.50 off the croissant, the amount typed with a decimal comma. The form
    // opens empty, with one article row to fill.
    await page.goto(`${baseUrl}/portal/campaigns/new`);
    expect(await field(page, 'Name').inputValue()).toBe('');
    await field(page, 'Name').fill('Croissant 0.50 off');
    await field(page, 'Discount').selectOption('amount');
    await field(page, 'Discount value').fill('0,50');
    // Every input carries its explanation.
    const help = await field(page, 'Discount value').getAttribute('aria-describedby');
    expect(await page.locator(`[id="${help}"]`).innerText()).toContain('EUR');
    const products = page.locator('fieldset[data-path="products"]').filter({ visible: true });
    await field(products, 'Article or group').selectOption('plu');
    await field(products, 'PLU or group').fill('2001');
    // The document the form sends is the one the API takes: money as the exact decimal.
    expect(JSON.parse(await page.locator('#rule-definition').inputValue())).toEqual({
      name: 'Croissant 0.50 off',
      type: 'product',
      discount: { amount: 0.5 },
      products: [{ plu: '2001' }],
    });
    expect(await field(page, 'Discount value').getAttribute('data-minor')).toBe('50');
    expect(await dryRun(page)).toEqual([expect.stringMatching(/^2\s+Croissant 0\.50 off\s+€0\.50$/)]);
    if (shots) await page.screenshot({ path: `${SHOTS}/campaign-form.png`, fullPage: true });
    await Promise.all([
      page.waitForURL(/\/portal\/campaigns\/[0-9]+$/),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    const productId = Number(page.url().split('/').pop());
    // The saved campaign opens in the form with its values.
    expect(await field(page, 'Discount value').inputValue()).toBe('0.50');
    expect(await field(page, 'Type').inputValue()).toBe('product');

    // A bill campaign: 10 % from 10 EUR, only on weekdays; a percent over 100 is refused by the
    // server, and its message is shown beside the field it names.
    await page.goto(`${baseUrl}/portal/campaigns/new`);
    await field(page, 'Name').fill('10 % from 10 EUR');
    await field(page, 'Type').selectOption('bill');
    expect(await page.locator('fieldset[data-path="products"]').filter({ visible: true }).count()).toBe(0);
    await field(page, 'Discount').selectOption('percent');
    await field(page, 'Discount value').fill('150');
    await field(page, 'Minimum bill').fill('10');
    await page.getByRole('button', { name: 'Save' }).click();
    const error = page.locator('.keyed:visible .field-error');
    await error.waitFor();
    // In the owner's words, not the API's path.
    expect(await error.innerText()).toBe('Enter a percentage above 0 and at most 100, like 20 or 12.5.');
    expect(await page.locator('#rule-form > .form-error').innerText()).toBe(
      'Not saved: please correct the marked field.',
    );
    expect(await field(page, 'Discount value').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement.getAttribute("data-part")')).toBe('value');
    if (shots) await page.screenshot({ path: `${SHOTS}/campaign-form-error.png`, fullPage: true });
    await field(page, 'Discount value').fill('10');
    expect(JSON.parse(await page.locator('#rule-definition').inputValue())).toEqual({
      name: '10 % from 10 EUR',
      type: 'bill',
      discount: { percent: 10 },
      minTotal: 10,
    });
    // The dry run with the live product campaign: the bill campaign takes 10 % of what is left.
    await page.getByLabel('Include live campaigns').check();
    expect(await dryRun(page)).toHaveLength(2);
    await Promise.all([
      page.waitForURL(/\/portal\/campaigns\/[0-9]+$/),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    const billId = Number(page.url().split('/').pop());
    expect(await page.locator('.field-error').count()).toBe(0);

    await page.goto(`${baseUrl}/portal/campaigns`);
    const list = await page.locator('table').first().innerText();
    expect(list).toMatch(/Croissant 0\.50 off\s+Article discount\s+live/);
    expect(list).toMatch(/10 % from 10 EUR\s+Bill discount\s+live/);

    // Published: the till's next basket gets both rewards.
    const up = await till.pos('POST', '/baskets/F-1', { body: basket(t.clock.nowMs()) });
    expect(up.statusCode).toBe(200);
    const rewards = (up.json() as { Rewards: { CouponId: number; GrossRewardValue: number }[] }).Rewards;
    expect(rewards).toEqual([
      expect.objectContaining({ CouponId: productId, GrossRewardValue: 0.5 }),
      expect.objectContaining({ CouponId: billId, GrossRewardValue: 1.19 }),
    ]);
    await context.close();
  }, 120_000);

  it('every campaign type, and a loyalty scheme, opens in the form with all its fields: the document the form builds from them is the definition stored', async () => {
    const merchant = `/merchants/${encodeURIComponent(till.serviceUserName)}`;
    const outletId = till.outletId;
    const campaigns = [
      {
        name: 'Every product field',
        type: 'product',
        discount: { price: 1.5 },
        products: [{ plu: '1001' }, { group: 'BAKERY' }],
        maxApplications: 2,
        couponCode: 'SPRING',
        requiresConsumer: true,
        usageLimitPerConsumer: 3,
        validFrom: '2026-12-01T08:00',
        validTo: '2027-01-01T00:00',
        schedule: [
          { days: [1, 2, 3], from: '07:00', to: '11:00' },
          { days: [6], from: '22:00', to: '24:00' },
        ],
        outletIds: [outletId],
        channels: ['pos'],
        priority: 5,
      },
      { name: 'Every bill field', type: 'bill', discount: { amount: 2.5 }, minTotal: 20, exclusive: true },
      {
        name: 'Two plus one',
        type: 'quantity',
        discount: { percent: 50 },
        products: [{ group: 'BAKERY' }],
        buy: 2,
        get: 1,
      },
      {
        name: 'Breakfast',
        type: 'combination',
        discount: { price: 4.9 },
        combination: [
          { plu: '1001', quantity: 1 },
          { group: 'BAKERY', quantity: 2 },
        ],
      },
    ];
    const scheme = {
      name: 'Every scheme field',
      earn: [
        { per: 'amount', amount: 10, points: 1 },
        { per: 'unit', products: [{ plu: '1001' }], points: 2 },
      ],
      reward: { threshold: 50, type: 'product', products: [{ group: 'BAKERY' }], discount: { percent: 100 } },
      validFrom: '2026-12-01T00:00',
      outletIds: [outletId],
      pointsExpireAfterDays: 90,
      // Status tiers, in the form by their own fields.
      tiers: [
        { name: 'Silver', threshold: 100, multiplier: 1.5 },
        { name: 'Gold', threshold: 500, multiplier: 2 },
      ],
      tierBasis: { measure: 'points', period: { rollingDays: 90 } },
    };
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    const opened: unknown[] = [];
    for (const [segment, body] of [
      ...campaigns.map((c) => ['campaigns', c] as const),
      ['loyaltySchemes', scheme] as const,
    ]) {
      const created = await t.admin('POST', `${merchant}/${segment}`, body);
      expect(created.statusCode, created.body).toBe(201);
      await page.goto(`${baseUrl}/portal/${segment}/${(created.json() as { id: number }).id}`);
      opened.push(JSON.parse(await page.locator('#rule-definition').inputValue()));
    }
    expect(opened).toEqual([...campaigns, scheme]);
    // A campaign limited to tiers opens with the limit in its field: the document the form builds holds it.
    const schemes = (await t.admin('GET', `${merchant}/loyaltySchemes?limit=100`)).json() as {
      data: { id: number; name: string }[];
    };
    const schemeId = schemes.data.find((s) => s.name === scheme.name)?.id;
    const limited = { ...campaigns[1], name: 'Silver only', tiers: { schemeId, names: ['Silver'] } };
    const created = await t.admin('POST', `${merchant}/campaigns`, limited);
    expect(created.statusCode, created.body).toBe(201);
    await page.goto(`${baseUrl}/portal/campaigns/${(created.json() as { id: number }).id}`);
    expect(JSON.parse(await page.locator('#rule-definition').inputValue())).toEqual(limited);
    await context.close();
  }, 90_000);

  it('an owner builds a loyalty scheme with an earn rule and a reward, in German at a tablet width', async () => {
    const context = await browser.newContext({ viewport: { width: 820, height: 1180 }, locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/portal/signin`);
    await page.getByLabel(/E-Mail/).fill(OWNER.email);
    await page.getByLabel(/Passwort/).fill(OWNER.password);
    await Promise.all([
      page.waitForURL(/\/portal\/dashboard/),
      page.getByRole('button', { name: 'Anmelden' }).click(),
    ]);
    await page.goto(`${baseUrl}/portal/loyaltySchemes/new`);
    await field(page, 'Name').fill('Kaffeestempel');
    const earn = page.locator('fieldset[data-path="earn"] > [data-rows] > [data-row]').first();
    await field(earn, 'Punkte').fill('2');
    await field(page, 'Prämie').selectOption('bill');
    await field(page, 'Kosten in Punkten').fill('20');
    await field(page, 'Rabatt').selectOption('amount');
    await field(page, 'Rabattwert').fill('3');
    await field(page, 'Punkte verfallen nach (Tagen)').fill('365');
    // A second earn rule, per amount spent, added with the keyboard.
    await page.getByRole('button', { name: 'Regel hinzufügen' }).focus();
    await page.keyboard.press('Enter');
    const second = page.locator('fieldset[data-path="earn"] > [data-rows] > [data-row]').nth(1);
    expect(await page.evaluate('document.activeElement.getAttribute("data-path")')).toBe('per');
    await field(second, 'Sammeln').selectOption('amount');
    await field(second, 'Betrag').fill('5');
    await second.locator('input[data-path="points"]').fill('1');
    if (shots) await page.screenshot({ path: `${SHOTS}/scheme-form-tablet.png`, fullPage: true });
    await Promise.all([
      page.waitForURL(/\/portal\/loyaltySchemes\/[0-9]+$/),
      page.getByRole('button', { name: 'Speichern' }).click(),
    ]);
    const id = Number(page.url().split('/').pop());
    const stored = (await t.admin('GET', `/loyaltySchemes/${id}`)).json() as Record<string, unknown>;
    expect(stored).toMatchObject({
      name: 'Kaffeestempel',
      earn: [
        { per: 'unit', products: [{ plu: '1001' }], points: 2 },
        { per: 'amount', amount: 5, points: 1 },
      ],
      reward: { threshold: 20, type: 'bill', discount: { amount: 3 } },
      pointsExpireAfterDays: 365,
    });
    await context.close();
  }, 90_000);
});
