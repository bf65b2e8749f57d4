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
import { signIn } from './portal-support.js';

const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');
const OWNER = { email: 'owner@cafe-owner.test', password: 'owner-campaigns-2026' };
const PHONE = { width: 390, height: 844 };

interface Answer {
  Rewards: { CouponId: number; GrossRewardValue: number; RewardTriggeringPositionId: number }[];
}

/** The elements that stick out of the screen on the right (none: nothing to scroll sideways). */
async function overflowing(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    if (document.documentElement.scrollWidth <= window.innerWidth) return [];
    return Array.from(document.querySelectorAll('body *'))
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(0, 8)
      .map((el) => el.tagName + (el.id ? '#' + el.id : '') + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right));
  })()`)) as string[];
}

/**
 * Campaigns for a café owner, in a browser: a template fills the new form, the dry run's basket is
 * picked from the sortiment and answers what the till answers, a refused field says so beside it
 * in the owner's words (German), and the campaign is paused, resumed and ended on its page.
 */
describe.each(databases)('campaigns for owners in a browser (%s)', (kind) => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl: string;
  let till: Terminal;
  let n = 0;
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
    // The till sells from this sortiment: its articles' groups are the ones campaigns see.
    const assign = await till.pos('POST', '/trackingUnits', {
      query: {
        serviceUserName: till.serviceUserName,
        outletId: String(till.outletId),
        instanceName: 'Till 1',
        sortimentId: sid,
      },
    });
    expect(assign.statusCode, assign.body).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const tillUpload = async (body: object, grant = false): Promise<Answer> => {
    const basketId = `OWN-${++n}`;
    const res = await till.pos('POST', `/baskets/${basketId}`, { body });
    expect(res.statusCode, res.body).toBe(200);
    if (grant) {
      const g = await till.pos('POST', `/baskets/${basketId}/grant`, {
        sign: basketId,
        query: { redeemedInPos: 'true' },
      });
      expect(g.statusCode, g.body).toBe(200);
    }
    return res.json() as Answer;
  };

  it('a template fills the new form (x % on a group), the owner saves it, builds a dry-run basket from the sortiment and gets the reward the till gives', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns/new`);
    await page.getByRole('link', { name: 'x % on a group' }).click();
    await page.waitForURL(/template=group-percent/);
    // The template: 10 % on the first article group of the sortiment.
    expect(JSON.parse(await page.locator('#rule-definition').inputValue())).toEqual({
      name: '10 % on a group',
      type: 'product',
      discount: { percent: 10 },
      products: [{ group: 'BAKERY' }],
    });
    await page.getByLabel('Name', { exact: true }).fill('10 % on pastries');

    // The dry run's basket, picked from the sortiment: two croissants (the price comes with it).
    expect(await page.getByLabel('Till', { exact: true }).inputValue()).toBe(till.trackingUnitId);
    const article = page.locator('[data-article-row] [data-part=plu]').first();
    await article.fill('2001');
    const row = page.locator('[data-article-row]').first();
    expect(await row.locator('[data-part=price]').inputValue()).toBe('2.80');
    await row.locator('[data-part=amount]').fill('2');
    await page.getByRole('button', { name: 'Add article', exact: true }).click();
    await page.locator('[data-article-row] [data-part=plu]').nth(1).fill('1001');
    await page.getByRole('button', { name: 'Try it' }).click();
    const rewards = page.locator('#dry-result tbody[data-rewards] tr');
    await rewards.first().waitFor();
    // 10 % of 2 x 2.80 on the croissants (BAKERY); the cappuccino is in no group.
    expect(await rewards.allInnerTexts()).toEqual([expect.stringMatching(/^1\s+10 % on pastries\s+€0\.56$/)]);
    const sent = JSON.parse(await page.locator('#dry-basket').inputValue()) as Record<string, unknown>;
    expect(sent.Positions).toEqual([
      { PositionId: 1, ProductId: '2001', Unit: 0, Amount: 2, CurrentGrossPrice: 2.8 },
      { PositionId: 2, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: 3.2 },
    ]);
    if (shots) await page.screenshot({ path: `${SHOTS}/campaign-template-dry-run.png`, fullPage: true });

    await Promise.all([
      page.waitForURL(/\/portal\/campaigns\/[0-9]+$/),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    const id = Number(page.url().split('/').pop());
    // The till, with the very basket the dry run tried: the same reward from the saved campaign.
    const answer = await tillUpload(sent, true);
    expect(answer.Rewards.map((r) => [r.RewardTriggeringPositionId, r.GrossRewardValue, r.CouponId])).toEqual(
      [[1, 0.56, id]],
    );
    await tillUpload(sent, true);

    // Its page: the state and its figures (two granted baskets, four uses, 1.12 EUR).
    await page.reload();
    const figures = page.locator('section', { hasText: 'Figures of the last 30 days' });
    expect(await figures.locator('.totals').innerText()).toMatch(/Baskets\s+2\s+Uses\s+4\s+Cost\s+€1\.12/);
    await page.locator('#chart-rule').waitFor();
    // The chart has a bar for each of the 30 days, a day without baskets at zero (the gap shows),
    // labelled and scaled in the user's language: the cost axis in the merchant's currency.
    const chart = (await page.evaluate(`(() => {
      const c = window.Chart.getChart('chart-rule');
      return { labels: c.data.labels, bars: c.data.datasets[0].data, cost: c.scales.y1.ticks.map((t) => t.label) };
    })()`)) as { labels: string[]; bars: number[]; cost: string[] };
    const today = new Date(t.clock.nowMs());
    expect(chart.bars).toEqual([...Array<number>(29).fill(0), 2]);
    expect(chart.labels).toHaveLength(30);
    // Today is the merchant's day (Europe/Berlin), which after 23:00 UTC is the next UTC day.
    expect(chart.labels[29]).toBe(
      today.toLocaleString('en-GB', { day: 'numeric', month: 'short', timeZone: 'Europe/Berlin' }),
    );
    expect(chart.cost.length).toBeGreaterThan(1);
    for (const tick of chart.cost) expect(tick).toMatch(/^€\d+\.\d\d$/);
    if (shots) await page.screenshot({ path: `${SHOTS}/campaign-page.png`, fullPage: true });

    // At 390 px the page fits the screen, figures and dry run included.
    await page.setViewportSize(PHONE);
    await page.reload();
    expect(await overflowing(page)).toEqual([]);
    if (shots) await page.screenshot({ path: `${SHOTS}/campaign-page-phone.png`, fullPage: true });

    // A recent basket of the till, with a coupon code, as the dry run's basket: its articles,
    // time and code fill the form, and the dry run answers what the till answered.
    const cardBasket = {
      Timestamp: '2026-03-02T08:05:00+01:00',
      HasDiscounts: false,
      BillNumber: 'R-4711',
      ContextIdentifiers: ['SPRING'],
      Positions: [
        { PositionId: 7, ProductId: '2001', Unit: 0, Amount: 3, CurrentGrossPrice: 2.6 },
        { PositionId: 9, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: 3.2 },
      ],
    };
    const tillAnswer = await tillUpload(cardBasket);
    await page.reload();
    const recent = page.getByLabel('Start from a recent basket');
    const option = recent.locator('option', { hasText: 'R-4711' });
    // Named by the basket's own time, as the till sent it, not by when it came.
    expect(await option.textContent()).toContain('2 Mar 2026, 08:05');
    await recent.selectOption((await option.getAttribute('value')) ?? '');
    const plus = page.locator('[data-article-row] [data-part=plu]');
    expect([await plus.nth(0).inputValue(), await plus.nth(1).inputValue(), await plus.count()]).toEqual([
      '2001',
      '1001',
      2,
    ]);
    expect(await page.getByLabel('Customer card or coupon code').inputValue()).toBe('SPRING');
    await page.getByRole('button', { name: 'Try it' }).click();
    await page.locator('#dry-result tbody[data-rewards] tr').first().waitFor();
    // The draft (the campaign as edited) gives the till's reward, on position 7.
    expect(await page.locator('#dry-result tbody[data-rewards] tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^7\s+10 % on pastries\s+€0\.78$/),
    ]);
    expect(tillAnswer.Rewards.map((r) => [r.RewardTriggeringPositionId, r.GrossRewardValue])).toEqual([
      [7, 0.78],
    ]);
    await context.close();
  }, 120_000);

  it('pause, resume and end on the campaign page: paused or ended, the till gives nothing; ending asks first', async () => {
    const created = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(till.serviceUserName)}/campaigns`,
      {
        name: 'Cappuccino 1 off',
        type: 'product',
        discount: { amount: 1 },
        products: [{ plu: '1001' }],
      },
    );
    const id = (created.json() as { id: number }).id;
    const coffee = () => ({
      Timestamp: new Date(t.clock.nowMs()).toISOString(),
      HasDiscounts: false,
      Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: 3.2 }],
    });
    const rewarded = async () => (await tillUpload(coffee())).Rewards.some((r) => r.CouponId === id);
    expect(await rewarded()).toBe(true);

    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/campaigns/${id}`);
    const state = page.locator('#state-title');
    expect(await state.innerText()).toContain('live');
    expect(await page.getByText('Stops the rewards at once').isVisible()).toBe(true);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Pause' }).click()]);
    expect(await state.innerText()).toContain('paused');
    expect(await rewarded()).toBe(false);
    expect(await overflowing(page)).toEqual([]);
    if (shots) await page.screenshot({ path: `${SHOTS}/campaign-paused-phone.png`, fullPage: false });

    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Resume' }).click()]);
    expect(await state.innerText()).toContain('live');
    expect(await rewarded()).toBe(true);

    // Ending asks first: dismissed, nothing changes; accepted, it ends for good.
    const questions: string[] = [];
    page.once('dialog', (d) => {
      questions.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'End', exact: true }).click();
    expect(questions).toEqual(['End this campaign for good? It cannot be resumed or changed afterwards.']);
    expect(await rewarded()).toBe(true);
    page.once('dialog', (d) => void d.accept());
    await Promise.all([
      page.waitForEvent('load'),
      page.getByRole('button', { name: 'End', exact: true }).click(),
    ]);
    expect(await state.innerText()).toContain('ended');
    expect(await page.getByRole('button', { name: 'Resume' }).count()).toBe(0);
    expect(await rewarded()).toBe(false);
    await context.close();
  }, 120_000);

  it('a refused field is shown beside it in German, in words, without the API path', async () => {
    const context = await browser.newContext({ viewport: PHONE, locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/portal/signin`);
    await page.getByLabel(/E-Mail/).fill(OWNER.email);
    await page.getByLabel(/Passwort/).fill(OWNER.password);
    await Promise.all([
      page.waitForURL(/\/portal\/dashboard/),
      page.getByRole('button', { name: 'Anmelden' }).click(),
    ]);
    await page.goto(`${baseUrl}/portal/campaigns/new?template=happy-hour`);
    expect(await page.locator('h2', { hasText: 'Mit einer Vorlage beginnen' }).count()).toBe(1);
    // The happy hour's time window loses its start: the server's schema refuses the window.
    const window = page.locator('fieldset[data-path="schedule"] [data-row]').first();
    await window.locator('input[data-path="from"]').fill('');
    await page.getByRole('button', { name: 'Speichern' }).click();
    const error = window.locator('.field-error');
    await error.waitFor();
    expect(await error.innerText()).toBe('Geben Sie den Beginn als HH:MM ein, etwa 15:00.');
    expect(await window.locator('input[data-path="from"]').getAttribute('aria-invalid')).toBe('true');
    const summary = await page.locator('#rule-form > .form-error').innerText();
    expect(summary).toBe('Nicht gespeichert: bitte das markierte Feld korrigieren.');
    expect(await page.locator('main').innerText()).not.toMatch(/body\/|deserialised|must have required/);
    expect(await overflowing(page)).toEqual([]);
    if (shots) await page.screenshot({ path: `${SHOTS}/campaign-error-de-phone.png`, fullPage: false });
    await context.close();
  }, 90_000);
});
