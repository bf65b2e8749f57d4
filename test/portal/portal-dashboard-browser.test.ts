import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { addTill, trade } from './dashboard-trade.js';
import { signIn } from './portal-support.js';

// The dashboard's pictures of docs/portal.md with PORTAL_SCREENSHOTS=1.
const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');
const OWNER = { email: 'owner@cafe-linde.test', password: 'linden-tree-2026' };
const MANAGER = { email: 'manager@cafe-linde.test', password: 'lindenblatt-2026' };
/** 2026-11-02 00:00 in Berlin: two weeks of trade from here, to Sunday 2026-11-15. */
const START = Date.parse('2026-11-01T23:00:00Z');
const RANGE = 'from=2026-11-02&to=2026-11-15';

interface AxisView {
  /** Per dataset: its label and the axis it is drawn on. */
  datasets: { label: string; axis: string }[];
  /** Per axis: the labels of its ticks as drawn. */
  ticks: Record<string, string[]>;
}

/** What a chart draws: which dataset on which axis, and each axis's tick labels. */
function axes(page: Page, id: string): Promise<AxisView> {
  return page.evaluate((canvas) => {
    const chart = (
      globalThis as unknown as {
        Chart: {
          getChart(id: string): {
            data: { datasets: { label: string; yAxisID: string }[] };
            scales: Record<string, { ticks: { label: string | string[] }[] }>;
          };
        };
      }
    ).Chart.getChart(canvas);
    const ticks: Record<string, string[]> = {};
    for (const [name, scale] of Object.entries(chart.scales))
      ticks[name] = scale.ticks.map((x) => (Array.isArray(x.label) ? x.label.join(' ') : String(x.label)));
    return { datasets: chart.data.datasets.map((d) => ({ label: d.label, axis: d.yAxisID })), ticks };
  }, id);
}

// How the dashboard draws and words its figures is the browser's and the page's work, the same on
// either database; the figures themselves, their days, weeks and months, are proven on both databases
// (test/portal/portal-dashboard.test.ts). So: the first database only.
describe.each(databases.slice(0, 1))('the dashboard in a browser over two weeks of a café (%s)', (kind) => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl: string;
  const shots = kind === 'pglite';

  beforeAll(async () => {
    t = await startApp(kind);
    const term = await setupTerminal(t, { timeZone: 'Europe/Berlin' });
    const u = encodeURIComponent(term.serviceUserName);
    for (const c of [
      { name: 'Cappuccino -20 %', type: 'product', products: [{ plu: '1001' }], discount: { percent: 20 } },
      {
        name: 'Third croissant free',
        type: 'quantity',
        products: [{ plu: '2001' }],
        buy: 2,
        get: 1,
        discount: { percent: 100 },
      },
      { name: '1.00 off from 15.00', type: 'bill', minTotal: 15, discount: { amount: 1 } },
    ]) {
      const res = await t.admin('POST', `/merchants/${u}/campaigns`, c);
      expect(res.statusCode, res.body).toBe(201);
    }
    const scheme = await t.admin('POST', `/merchants/${u}/loyaltySchemes`, {
      name: 'Coffee card',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
      reward: { threshold: 20, type: 'bill', discount: { amount: 2 } },
    });
    expect(scheme.statusCode, scheme.body).toBe(201);
    const cards = ['card-a', 'card-b', 'card-c', 'card-d'];
    for (const c of cards) expect((await tokens(term).register(c)).statusCode).toBe(200);
    const users = `/merchants/${u}/portalUsers`;
    expect((await t.admin('POST', users, OWNER)).statusCode).toBe(201);
    expect((await t.admin('POST', users, { ...MANAGER, role: 'staff', lang: 'de' })).statusCode).toBe(201);
    const tills = [
      { outletId: term.outletId, pos: term.pos },
      await addTill(t, term, 'Station'),
      await addTill(t, term, 'Harbour'),
    ];
    await trade(t, tills, cards, START, 14);
    // Back to the browser's time: the session cookie expires by the server's clock.
    t.clock.ms = Math.max(t.clock.ms, Date.now());
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const who of [
    { lang: 'en', user: OWNER, name: 'dashboard' },
    { lang: 'de', user: MANAGER, name: 'dashboard-de' },
  ] as const) {
    for (const width of [1280, 390]) {
      it(`${who.lang}, ${width} px: money on a money axis, points on a points axis, dates and money in the language, nothing cut off`, async () => {
        const context = await browser.newContext({
          viewport: { width, height: 900 },
          locale: who.lang === 'de' ? 'de-DE' : 'en-GB',
        });
        const page = await context.newPage();
        await signIn(page, baseUrl, who.user);
        await page.goto(`${baseUrl}/portal/dashboard?${RANGE}`);
        await page.waitForFunction("Boolean(window.Chart && window.Chart.getChart('chart-loyalty'))");
        const text = await page.locator('main').innerText();
        const euro = who.lang === 'de' ? /\d,\d\d\s€/ : /€\d+(,\d{3})*\.\d\d/;
        expect(text).toMatch(euro);
        if (who.lang === 'de') expect(text).toContain('14.11.2026');
        for (const bad of ['None', 'undefined', 'NaN', 'null', 'Infinity']) expect(text).not.toContain(bad);

        // Revenue and rewards on the money axis, whose ticks are money; points on the points axis.
        const loyalty = await axes(page, 'chart-loyalty');
        const pointsSets = loyalty.datasets.filter((d) => d.axis === 'points');
        expect(pointsSets.length).toBe(2);
        expect(loyalty.datasets.filter((d) => d.axis === 'money').length).toBe(1);
        const sales = await axes(page, 'chart-sales');
        expect(sales.datasets.map((d) => d.axis).sort()).toEqual(['count', 'money']);
        for (const view of [loyalty, sales]) {
          expect(view.ticks.money?.length).toBeGreaterThan(1);
          for (const tick of view.ticks.money ?? []) expect(tick).toMatch(/€/);
        }
        for (const tick of loyalty.ticks.points ?? []) expect(tick).not.toMatch(/€/);
        expect(loyalty.ticks.points?.some((x) => Number(x.replace(/\D/g, '')) > 0)).toBe(true);

        // Nothing wider than the window: no sideways scrolling of the page.
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
        if (shots)
          await page.screenshot({
            path: `${SHOTS}/${who.name}${width < 600 ? '-phone' : ''}.png`,
            fullPage: true,
            // The figures and charts; the table by day and outlet below is left out of the picture.
            clip: { x: 0, y: 0, width, height: width < 600 ? 2400 : 1950 },
          });
        await context.close();
      }, 60_000);
    }
  }
  it('a period over 90 days is drawn and listed by week, Monday to Sunday, with the money axis kept', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, baseUrl, OWNER);
    // 15 weeks, Monday 3 August to Sunday 15 November; the trade is in the last two.
    await page.goto(`${baseUrl}/portal/dashboard?from=2026-08-03&to=2026-11-15`);
    await page.waitForFunction("Boolean(window.Chart && window.Chart.getChart('chart-sales'))");
    const labels = await page.evaluate<string[]>("window.Chart.getChart('chart-sales').data.labels");
    expect(labels.length).toBe(15);
    expect([labels[0], labels.at(-2), labels.at(-1)]).toEqual(['3 Aug', '2 Nov', '9 Nov']);
    const sales = await axes(page, 'chart-sales');
    for (const tick of sales.ticks.money ?? []) expect(tick).toMatch(/€/);
    expect(await page.getByRole('heading', { name: 'Revenue and baskets by week' }).count()).toBe(1);
    const firstCells = await page.locator('#dashboard-table tbody tr td:first-child').allInnerTexts();
    expect(new Set(firstCells)).toEqual(new Set(['2 Nov 2026 – 8 Nov 2026', '9 Nov 2026 – 15 Nov 2026']));
    if (shots) await page.screenshot({ path: `${SHOTS}/dashboard-weeks.png`, fullPage: true });
    await page.close();
  }, 60_000);

  it('the period shown is the one preset that looks chosen: filled, the others outlined', async () => {
    const page = await browser.newPage();
    await signIn(page, baseUrl, OWNER);
    for (const preset of ['today', '7d', '30d']) {
      await page.goto(`${baseUrl}/portal/dashboard?preset=${preset}`);
      const looks = await page.evaluate<[string | null, string][]>(
        "[...document.querySelectorAll('nav.presets a')].map((a) => [a.getAttribute('aria-current'), getComputedStyle(a).backgroundColor])",
      );
      const chosen = looks.filter(([current]) => current === 'page').map(([, bg]) => bg);
      const others = looks.filter(([current]) => current !== 'page').map(([, bg]) => bg);
      expect(chosen.length, preset).toBe(1);
      expect(others.length, preset).toBe(3);
      for (const bg of others) expect(bg, preset).not.toBe(chosen[0]);
    }
    await page.close();
  });
});
