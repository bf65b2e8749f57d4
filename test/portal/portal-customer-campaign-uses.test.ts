import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderBody, setupCheckout } from '../checkout/checkout-support.js';
import { listFits, openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type PortalSession, newPortalSession, portalCall, signIn } from './portal-support.js';

/**
 * A customer's uses of the campaigns with a usage limit per customer on their page (docs/decisions.md,
 * "A customer's uses on their page"): the count the tills and the orders go by, so staff can tell a
 * customer why a campaign gave them nothing.
 */

const OWNER = { email: 'owner@uses.test', password: 'a-long-enough-password', lang: 'de' };
const SHOTS = screenshotDir('docs/portal', '.test-cache/screenshots');

interface Use {
  campaignId: number;
  name: string;
  limit: number;
  used: number;
  paused: boolean;
}

/** A shop with two campaigns limited per customer, one customer who used them at the till and online. */
async function shop(t: TestApp) {
  const c = await setupCheckout(t);
  const u = encodeURIComponent(c.serviceUserName);
  const owner = await newPortalSession(t, c.serviceUserName, OWNER);
  const create = async (body: object) => {
    const res = await t.admin('POST', `/merchants/${u}/campaigns`, body);
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { id: number }).id;
  };
  const cake = await create({
    name: 'Kuchen 2 Euro, zweimal je Kunde',
    type: 'product',
    discount: { amount: 2 },
    products: [{ plu: '1003' }],
    usageLimitPerConsumer: 2,
  });
  const coffee = await create({
    name: 'Erster Kaffee gratis',
    type: 'product',
    discount: { percent: 100 },
    products: [{ plu: '1001' }],
    maxApplications: 1,
    usageLimitPerConsumer: 1,
  });
  // A campaign without a limit and an ended one with a limit are not listed.
  await create({ name: 'Zehn Prozent', type: 'bill', discount: { percent: 10 } });
  const ended = await create({
    name: 'Alt',
    type: 'product',
    discount: { amount: 1 },
    products: [{ plu: '1004' }],
    usageLimitPerConsumer: 5,
  });
  const end = await t.admin('DELETE', `/merchants/${u}/campaigns/${ended}`);
  expect(end.statusCode, end.body).toBe(200);
  const p = await c.profile({ balance: 10_000 });
  // A cake at the till ...
  const up = await c.term.pos('POST', '/baskets/USES-1', {
    body: {
      Timestamp: new Date(t.clock.nowMs()).toISOString(),
      HasDiscounts: false,
      CurrencyISO: 'EUR',
      Positions: [{ PositionId: 1, ProductId: '1003', Unit: 0, Amount: 1, CurrentGrossPrice: 12.99 }],
    },
    query: { consumerIdentToken: p.card },
  });
  expect(up.statusCode, up.body).toBe(200);
  expect((await c.term.pos('POST', '/baskets/USES-1/grant', { sign: 'USES-1' })).statusCode).toBe(200);
  // ... and a cake and a coffee online: 12.99 - 2.00 + 3.50 - 3.50, less the bill's 10 %.
  const body = orderBody(
    c,
    p.card,
    [
      ['1003', 1],
      ['1001', 1],
    ],
    { totalGross: undefined },
  );
  const quote = await c.call('POST', '/api/v1/baskets', body);
  expect(quote.statusCode, quote.body).toBe(200);
  const order = await c.order({
    ...body,
    totalGross: quote.json().totalGross,
    balance: { requestCharge: true },
  });
  expect(order.statusCode, order.body).toBe(200);
  return { c, owner, p, cake, coffee, orderBasketId: body.basketId as string };
}

const uses = async (t: TestApp, owner: PortalSession, profileId: number): Promise<Use[]> => {
  const res = await portalCall(t, owner, 'GET', `/profiles/${profileId}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { campaignUses: Use[] }).campaignUses;
};

describe.each(databases)("a customer's uses of campaigns limited per customer on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());

  it('the customer view counts the till and the orders together, lists only live limited campaigns, and a whole refund gives the uses back', async () => {
    const { c, owner, p, cake, coffee, orderBasketId } = await shop(t);
    expect(await uses(t, owner, p.id)).toEqual([
      { campaignId: cake, name: 'Kuchen 2 Euro, zweimal je Kunde', limit: 2, used: 2, paused: false },
      { campaignId: coffee, name: 'Erster Kaffee gratis', limit: 1, used: 1, paused: false },
    ]);
    const refund = await c.call('POST', `/api/v1/orders/${orderBasketId}/refund`);
    expect(refund.statusCode, refund.body).toBe(200);
    expect((await uses(t, owner, p.id)).map((x) => x.used)).toEqual([1, 0]);
    // Another customer has used none.
    const other = await c.profile();
    expect((await uses(t, owner, other.id)).map((x) => x.used)).toEqual([0, 0]);
  });
});

describe("a customer's uses on their page, in a browser", () => {
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

  it('on a phone, in German, the owner reads that the customer has no cake discount left and one coffee', async () => {
    const { p, cake } = await shop(t);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/profiles/${p.id}`);
    expect(await page.locator('#campaign-uses-title').innerText()).toBe('Aktionen mit Grenze je Kunde');
    const rows = page.locator('#profile-campaign-uses tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const first = (await rows.nth(0).innerText()).replace(/\s+/g, ' ');
    expect(first).toContain('Kuchen 2 Euro, zweimal je Kunde');
    expect(first).toContain('2 von 2');
    expect(first).toContain('keine mehr');
    expect((await rows.nth(1).innerText()).replace(/\s+/g, ' ')).toContain('1 von 1');
    expect(await rows.nth(0).locator('a').getAttribute('href')).toBe(`/portal/campaigns/${cake}`);
    await listFits(page, '#profile-campaign-uses');
    await page.locator('#campaign-uses-title').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/customer-campaign-uses-390.png`, fullPage: true });
    await context.close();
  });
});
