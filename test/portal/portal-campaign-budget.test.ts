import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Terminal,
  type TestApp,
  databases,
  setupTerminal,
  sortimentIdOf,
  startApp,
} from '../support/harness.js';
import { openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { basket, field, signIn } from './portal-support.js';

const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');
const OWNER = { email: 'owner@cafe-budget.test', password: 'budget-fields-2026' };

/** Stacking and budgets in the campaign form and on the campaign page (docs/decisions.md, "Budgets on the campaign page"). */
describe.each(databases)('stacking and budgets in the portal (%s)', (kind) => {
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
    const merchant = `/merchants/${encodeURIComponent(till.serviceUserName)}`;
    expect((await t.admin('POST', `${merchant}/portalUsers`, OWNER)).statusCode).toBe(201);
    const sid = await sortimentIdOf(till, `menu-${kind}`);
    const upload = await till.pos('POST', `/sortiments/${sid}/bulkUpload`, {
      query: { changedArticlesOnly: 'false' },
      body: {
        Articles: [
          {
            PLU: '1001',
            Name: [{ lang: 'en', val: 'Cappuccino' }],
            Prices: [{ Value: 3.2, CurrencyIso: 'EUR' }],
          },
          {
            PLU: '2001',
            Name: [{ lang: 'en', val: 'Croissant' }],
            Prices: [{ Value: 2.8, CurrencyIso: 'EUR' }],
          },
        ],
      },
    });
    expect(upload.statusCode).toBe(200);
    const live = await t.admin('POST', `${merchant}/campaigns`, {
      name: 'Croissant 0.50 off',
      type: 'product',
      discount: { amount: 0.5 },
      products: [{ plu: '2001' }],
    });
    expect(live.statusCode).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an owner sets stacking and budgets in the form, the dry run shows the stacked reward, and the campaign page shows what is left after a grant', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns/new`);
    await field(page, 'Name').fill('Croissant 10 % on top');
    await field(page, 'Type').selectOption('product');
    await field(page, 'Discount').selectOption('percent');
    await field(page, 'Discount value').fill('10');
    const products = page.locator('fieldset[data-path="products"]').filter({ visible: true });
    await field(products, 'Article or group').selectOption('plu');
    await field(products, 'PLU or group').fill('2001');
    await field(page, 'Stacking').selectOption('group');
    await field(page, 'Stacking group').fill('bakery');
    await field(page, 'Stacking').selectOption('stackable');
    // The group name goes with mode group only: hidden again, and not sent.
    expect(await field(page, 'Stacking group').count()).toBe(0);
    await field(page, 'Budget: total discount').fill('1');
    await field(page, 'Budget: purchases').fill('5');
    await field(page, 'Budget per period').selectOption('day');
    // A period without its amount is refused, in the owner's words beside the field.
    await page.getByRole('button', { name: 'Save' }).click();
    const error = page.locator('.field-error');
    await error.waitFor();
    expect(await error.innerText()).toBe('Enter the budget per period above 0 in EUR, like 50.');
    await field(page, 'Budget per period: discount').fill('0,50');
    expect(JSON.parse(await page.locator('#rule-definition').inputValue())).toEqual({
      name: 'Croissant 10 % on top',
      type: 'product',
      discount: { percent: 10 },
      products: [{ plu: '2001' }],
      stacking: { mode: 'stackable' },
      budget: { total: 1, redemptions: 5, period: 'day', periodAmount: 0.5 },
    });

    // The dry run with the live campaign: 0.50 off the croissant, then 10 % of the 2.30 left on top.
    await page.locator('#dry-advanced summary').click();
    await page.locator('#dry-basket').fill(JSON.stringify(basket(t.clock.nowMs())));
    await page.getByLabel('Include live campaigns').check();
    await page.getByRole('button', { name: 'Try it' }).click();
    await page.locator('#dry-result:visible').waitFor();
    const rows = await page.locator('#dry-result tbody[data-rewards] tr').allInnerTexts();
    expect(rows).toEqual([
      expect.stringMatching(/^2\s+Croissant 0\.50 off\s+€0\.50$/),
      expect.stringMatching(/^2\s+Croissant 10 % on top · stacked on the reward above\s+€0\.23$/),
    ]);
    expect(await page.locator('#dry-result tbody[data-why]').innerText()).toContain(
      'stacking: stacks with all',
    );
    if (shots) await page.screenshot({ path: `${SHOTS}/campaign-form-stacking-budget.png`, fullPage: true });

    await Promise.all([
      page.waitForURL(/\/portal\/campaigns\/[0-9]+$/),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    const id = Number(page.url().split('/').pop());
    // The saved campaign opens with its stacking and budgets, and all of each budget left.
    expect(await field(page, 'Stacking').inputValue()).toBe('stackable');
    expect(await field(page, 'Budget per period: discount').inputValue()).toBe('0.50');
    const left = () => page.locator('[data-budget] [data-budget-left]').allInnerTexts();
    expect(await left()).toEqual([expect.stringMatching(/1\.00/), '5', expect.stringMatching(/0\.50/)]);

    // A basket at the till, granted: both rewards, and the budget shows what it used.
    const up = await till.pos('POST', '/baskets/B-1', { body: basket(t.clock.nowMs()) });
    expect(up.statusCode).toBe(200);
    const grant = await till.pos('POST', '/baskets/B-1/grant', { sign: 'B-1' });
    expect(grant.statusCode, grant.body).toBe(200);
    const rewards = (grant.json() as { Rewards: { CouponId: number; GrossRewardValue: number }[] }).Rewards;
    expect(rewards.filter((r) => r.CouponId === id).map((r) => r.GrossRewardValue)).toEqual([0.23]);
    await page.reload();
    expect(await left()).toEqual([expect.stringMatching(/0\.77/), '4', expect.stringMatching(/0\.27/)]);
    const section = await page.locator('[data-budget]').innerText();
    expect(section).toMatch(/Discount today \(since /);
    if (shots) {
      await page.locator('[data-budget]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/campaign-page-budget.png`, fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('[data-budget]').screenshot({ path: `${SHOTS}/campaign-page-budget-390.png` });
    }

    // In German, at 390 px: the card and the form's fields in the merchant's words.
    await page.setViewportSize({ width: 390, height: 844 });
    await Promise.all([page.waitForEvent('load'), page.locator('select[data-lang]').selectOption('de')]);
    expect(await page.locator('[data-budget]').innerText()).toMatch(/Rabatt heute \(seit /);
    expect(await field(page, 'Stapeln').inputValue()).toBe('stackable');
    expect(await field(page, 'Budget: Einkäufe').inputValue()).toBe('5');
    if (shots) {
      await page.locator('[data-budget]').screenshot({ path: `${SHOTS}/campaign-page-budget-de-390.png` });
      await field(page, 'Stapeln').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/campaign-form-budget-de-390.png` });
    }
    await Promise.all([page.waitForEvent('load'), page.locator('select[data-lang]').selectOption('en')]);
    await context.close();
  }, 120_000);
});
