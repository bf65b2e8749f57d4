import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, orderBody, setupCheckout } from '../checkout/checkout-support.js';
import { type PortalSession, ownerAndStaff, portalCall, signIn } from './portal-support.js';
import { fitsWidth, openChromium, screenshotDir, serve } from '../support/browser.js';

const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');

interface Reason {
  reasonCode: string;
  baskets: number;
  example: { trackingUnitId?: string; orderId?: string; basketId: string };
}
interface Campaign {
  campaignId: number | string;
  applied: number;
  appliedOrders: number;
  applications: number;
  discount: number;
  reasons: Reason[];
}
interface Answer {
  baskets: number;
  orders: number;
  skipped: number;
  campaigns: Campaign[];
}

interface Shop {
  t: TestApp;
  m: CheckoutClient;
  owner: PortalSession;
  appOnly: number;
  budgeted: number;
  orderIds: string[];
  orderBaskets: string[];
}

/**
 * A shop with tills and an ordering app: an app-only 10 % off article 1001 (3.50), 2.00 off article
 * 1003 (12.99) with a budget; two baskets at the till, three orders in the app.
 */
async function shop(kind: (typeof databases)[number]): Promise<Shop> {
  let appOnly = 0;
  let budgeted = 0;
  const orderIds: string[] = [];
  const orderBaskets: string[] = [];
  const t = await startApp(kind);
  const m = await setupCheckout(t, { timeZone: 'Europe/Berlin' });
  const { owner } = await ownerAndStaff(
    t,
    m.serviceUserName,
    { owner: 'inhaber@laden-app.test', staff: 'kasse@laden-app.test' },
    'bestellung-2026',
  );
  const u = `/merchants/${encodeURIComponent(m.serviceUserName)}`;
  const made = async (body: object) => {
    const res = await t.admin('POST', `${u}/campaigns`, body);
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { id: number }).id;
  };
  // 10 % off article 1001 (3.50) in the app only; 2.00 off article 1003 (12.99) with a budget.
  appOnly = await made({
    name: 'App -10 %',
    type: 'product',
    discount: { percent: 10 },
    products: [{ plu: '1001' }],
    channels: ['checkout'],
  });
  budgeted = await made({
    name: 'Zwei Euro, 50 Mal',
    type: 'product',
    discount: { amount: 2 },
    products: [{ plu: '1003' }],
    budget: { redemptions: 50 },
  });
  const hour = 3_600_000;
  const time = (hoursAgo: number) => new Date(t.clock.ms - hoursAgo * hour).toISOString();
  // Two baskets at the till, five and three hours ago.
  for (const [i, hoursAgo] of [5, 3].entries()) {
    const res = await m.term.pos('POST', `/baskets/till-${i + 1}`, {
      body: {
        Timestamp: time(hoursAgo).replace('Z', '+00:00'),
        HasDiscounts: false,
        CurrencyISO: 'EUR',
        Positions: [
          { PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 3.5 },
          { PositionId: 2, ProductId: '1003', Unit: 0, Amount: 1, CurrentGrossPrice: 12.99 },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  // Three orders in the app, four, two and one hours ago: two with 1001 (10 % off, 0.35 each),
  // one with 1003 alone and one with both (2.00 off 1003 each, booked against the budget).
  const p = await m.profile({ balance: 10_000 });
  const orders: [number, [string, number][], number][] = [
    [4, [['1001', 2]], 630],
    [2, [['1003', 1]], 1099],
    [
      1,
      [
        ['1001', 1],
        ['1003', 1],
      ],
      315 + 1099,
    ],
  ];
  for (const [hoursAgo, positions, total] of orders) {
    const body = orderBody(m, p.card, positions, {
      orderTimestamp: time(hoursAgo),
      totalGross: total,
      balance: { requestCharge: true },
    });
    const res = await m.order(body);
    expect(res.statusCode, res.body).toBe(200);
    orderBaskets.push(body.basketId as string);
    const row = await t.database.db
      .selectFrom('checkout_orders')
      .select('id')
      .where('basket_id', '=', body.basketId as string)
      .executeTakeFirstOrThrow();
    orderIds.push(row.id);
  }
  return { t, m, owner, appOnly, budgeted, orderIds, orderBaskets };
}

/**
 * docs/decisions.md, "Why a campaign did not apply": the dry run over the recent purchases takes
 * the online orders too, each evaluated again as its pricing evaluates it. A shop with tills and an
 * ordering app: an app-only discount applies in the orders and says "not for this channel" for the
 * tills' baskets; a campaign with a budget applies in both while it fits what is left of the
 * budget, as the orders were priced.
 */
describe.each(databases)('dry run over the recent baskets and online orders (%s)', (kind) => {
  let s: Shop;
  beforeAll(async () => {
    s = await shop(kind);
  }, 120_000);
  afterAll(async () => {
    await s?.t.close();
  });

  const byId = (a: Answer) => Object.fromEntries(a.campaigns.map((c) => [String(c.campaignId), c]));

  it('the app-only campaign applies in the orders with 1001 and is not for the tills; its discount is what the orders were given', async () => {
    const { t, m, owner, appOnly, orderIds, orderBaskets } = s;
    const res = await portalCall(t, owner, 'POST', '/dryRun/recent', {});
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json() as Answer;
    expect(answer).toMatchObject({ baskets: 2, orders: 3, skipped: 0 });
    const c = byId(answer)[String(appOnly)];
    // One application per unit: two in the first order, one in the last.
    expect(c).toMatchObject({ applied: 2, appliedOrders: 2, applications: 3, discount: 1.05 });
    // The newest basket of each reason is its example: till-2 for the tills, the order with 1003 alone.
    expect(c?.reasons).toEqual([
      {
        reasonCode: 'channel_not_included',
        baskets: 2,
        example: { trackingUnitId: m.term.trackingUnitId, basketId: 'till-2' },
      },
      {
        reasonCode: 'no_article_matches',
        baskets: 1,
        example: { orderId: orderIds[1], basketId: orderBaskets[1] },
      },
    ]);
    // The orders' own pricing: what they were given off 1001, minor units.
    const priced = await t.database.db
      .selectFrom('checkout_orders')
      .select('priced')
      .where('id', 'in', orderIds)
      .execute();
    const given = priced
      .flatMap(
        (r) =>
          (r.priced as { priced: { positions: { productPlu: string; discountMinor: number }[] } }).priced
            .positions,
      )
      .filter((x) => x.productPlu === '1001')
      .reduce((sum, x) => sum + x.discountMinor, 0);
    expect(given).toBe(105);
  });

  it('the campaign with a budget applies in the baskets and in the orders, as they were priced and booked', async () => {
    const { t, owner, budgeted, orderIds, orderBaskets } = s;
    const answer = (await portalCall(t, owner, 'POST', '/dryRun/recent', {})).json() as Answer;
    const c = byId(answer)[String(budgeted)];
    // 2.00 off in both baskets and in the two orders with 1003.
    expect(c).toMatchObject({ applied: 4, appliedOrders: 2, discount: 8 });
    expect(c?.reasons).toEqual([
      {
        reasonCode: 'no_article_matches',
        baskets: 1,
        example: { orderId: orderIds[0], basketId: orderBaskets[0] },
      },
    ]);
    // The two orders booked their redemptions; the tills' baskets, not granted, none.
    const usage = await t.database.db
      .selectFrom('campaign_budget_usage')
      .select(['discount_minor', 'redemptions'])
      .where('campaign_id', '=', budgeted)
      .where('period', '=', 'total')
      .executeTakeFirstOrThrow();
    expect(usage).toEqual({ discount_minor: 400, redemptions: 2 });
  });

  it('a draft standing in for the app-only campaign for both channels: it applies in the baskets too', async () => {
    const { t, owner, appOnly } = s;
    const res = await portalCall(t, owner, 'POST', '/dryRun/recent', {
      campaigns: [
        { name: 'Alle -10 %', type: 'product', discount: { percent: 10 }, products: [{ plu: '1001' }] },
      ],
      replaces: { campaigns: [appOnly] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const c = byId(res.json() as Answer)['draft-1'];
    // 2 x 3.50 at the till twice (0.70 each), the orders' 0.70 and 0.35.
    expect(c).toMatchObject({ applied: 4, appliedOrders: 2, discount: 2.45 });
  });

  it('the operator API answers the same', async () => {
    const { t, m, owner } = s;
    const portal = await portalCall(t, owner, 'POST', '/dryRun/recent', { limit: 2 });
    const operator = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(m.serviceUserName)}/dryRun/recent`,
      { limit: 2 },
    );
    expect(operator.statusCode, operator.body).toBe(200);
    expect(operator.json()).toEqual(portal.json());
    expect(operator.json()).toMatchObject({ baskets: 2, orders: 2 });
  });

  // Last: it refunds an order.
  it("the campaign's figures count the online orders it gave a reward, the campaigns list too; an order refunded in whole no more", async () => {
    const { t, m, owner, appOnly, budgeted, orderBaskets } = s;
    const figures = async (id: number) => {
      const res = await portalCall(t, owner, 'GET', `/campaigns/${id}/stats`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as {
        baskets: number;
        orders: number;
        uses: number;
        costMinor: number;
        days: unknown[];
      };
    };
    // The tills' baskets were uploaded, not granted: the figures are the orders'.
    expect(await figures(appOnly)).toMatchObject({ baskets: 0, orders: 2, uses: 3, costMinor: 70 + 35 });
    expect(await figures(budgeted)).toMatchObject({ baskets: 0, orders: 2, uses: 2, costMinor: 400 });
    const days = (await figures(appOnly)).days as { baskets: number; orders: number; costMinor: number }[];
    expect(days.reduce((a, d) => a + d.orders, 0)).toBe(2);
    expect(days.reduce((a, d) => a + d.costMinor, 0)).toBe(105);
    // The order's page names the campaigns that gave it its discounts.
    const detail = await portalCall(t, owner, 'GET', `/orders/${s.orderIds[2]}`);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json().campaigns).toEqual([
      { campaignId: appOnly, name: 'App -10 %', pricedName: 'App -10 %', uses: 1, discountMinor: 35 },
      {
        campaignId: budgeted,
        name: 'Zwei Euro, 50 Mal',
        pricedName: 'Zwei Euro, 50 Mal',
        uses: 1,
        discountMinor: 200,
      },
    ]);
    // The order with 1001 and 1003 refunded in whole: both campaigns lose it.
    const refund = await m.call('POST', `/api/v1/orders/${orderBaskets[2]}/refund`);
    expect(refund.statusCode, refund.body).toBe(200);
    expect(await figures(appOnly)).toMatchObject({ orders: 1, uses: 2, costMinor: 70 });
    expect(await figures(budgeted)).toMatchObject({ orders: 1, uses: 1, costMinor: 200 });
  });
});

// The page in the browser once, on the embedded database (its answer is the API's, held on both above).
describe.each(databases.slice(0, 1))(
  'the recent run with online orders on the campaign page (%s)',
  (kind) => {
    let s: Shop;
    beforeAll(async () => {
      s = await shop(kind);
    }, 120_000);
    afterAll(async () => {
      await s?.t.close();
    });

    it('the campaign page says it in German on a phone, the orders apart, and its example opens the order', async () => {
      const { t, appOnly, orderIds, orderBaskets } = s;
      t.clock.ms = Math.max(t.clock.ms, Date.now());
      const baseUrl = await serve(t);
      const browser = await openChromium();
      try {
        const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
        const page = await context.newPage();
        await signIn(page, baseUrl, { email: 'inhaber@laden-app.test', password: 'bestellung-2026' });
        await page.goto(`${baseUrl}/portal/campaigns/${appOnly}`);
        // The figures count the two orders it gave 10 % off: no basket was granted.
        const figures = page.locator('section[aria-labelledby="fig-title"]');
        const total = (label: string) => figures.locator('dl.totals div', { hasText: label }).locator('dd');
        expect(await total('Warenkörbe').innerText()).toBe('0');
        expect(await total('Online-Bestellungen').innerText()).toBe('2');
        expect(await total('Kosten').innerText()).toMatch(/^1,05\s€$/);
        expect(await figures.locator('#rule-days th').allInnerTexts()).toContain('Online-Bestellungen');
        await fitsWidth(page);
        await figures.screenshot({ path: `${SHOTS}/campaign-figures-orders-de-390.png` });
        const result = page.locator('#dry-last-result');
        const answered = page.waitForResponse((r) => r.url().endsWith('/portal/api/v1/dryRun/recent'));
        await page.getByRole('button', { name: 'Mit den letzten 50 Warenkörben prüfen' }).click();
        expect((await answered).status()).toBe(200);
        await result.locator('[data-summary]:not(:empty)').waitFor();
        expect(await result.locator('[data-summary]').innerText()).toMatch(
          /^Gilt in 0 von 2 Warenkörben und in 2 von 3 Online-Bestellungen, Rabatt zusammen 1,05\s€\.$/,
        );
        expect(await result.locator('[data-reasons] li').allInnerTexts()).toEqual([
          '2 × nicht für diesen Kanal (Kasse oder Bestell-App) (zum Beispiel Warenkorb till-2)',
          `1 × kein Artikel des Warenkorbs gehört zu ihren Artikeln (zum Beispiel Online-Bestellung ${orderBaskets[1]})`,
        ]);
        await fitsWidth(page);
        await result.screenshot({ path: `${SHOTS}/campaign-dry-run-recent-orders-phone.png` });
        // The example opens the order's page: article 1003, 12,99 € less the 2,00 € of its budgeted campaign.
        await result
          .getByRole('link', { name: `(zum Beispiel Online-Bestellung ${orderBaskets[1]})` })
          .click();
        await page.waitForURL(new RegExp(`/portal/orders/${orderIds[1]}$`));
        expect(await page.locator('main').innerText()).toContain('10,99');
        expect(await page.locator('#order-campaigns').innerText()).toMatch(
          /^Aktionen: Zwei Euro, 50 Mal −2,00\s€$/,
        );
        await fitsWidth(page);
        await page.screenshot({ path: `${SHOTS}/order-page-campaigns-de-390.png`, fullPage: true });
        await context.close();
      } finally {
        await browser.close();
      }
    }, 120_000);
  },
);
