import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestBrowser,
  fitsWidth,
  listFits,
  openChromium,
  phoneLabelOf,
  screenshotDir,
  serve,
} from '../support/browser.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { type CheckoutClient, orderBody, setupCheckout, signedOrder } from '../checkout/checkout-support.js';
import { type PortalSession, newPortalSession, portalCall, portalSession, signIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const SHOTS = screenshotDir('docs/portal', '.test-cache');
/** Monday and Tuesday in Berlin (UTC+1). */
const DAY1 = '2026-11-09';
const DAY2 = '2026-11-10';
const at = (day: string, hhmm: string) => Date.parse(`${day}T${hhmm}:00+01:00`);

interface Figures {
  orders: number;
  orderedMinor: number;
  chargedMinor: number;
  refunds: number;
  refundedMinor: number;
  netMinor: number;
}
interface Shop extends Figures {
  clientId: number;
  shop: string;
  revoked: boolean;
}
type Orders = { totals: Figures; previous: Figures; byShop: Shop[] } | null;

const figures = (orders: number, ordered: number, charged: number, refunds: number, refunded: number) => ({
  orders,
  orderedMinor: ordered,
  chargedMinor: charged,
  refunds,
  refundedMinor: refunded,
  netMinor: ordered - refunded,
});

/**
 * docs/decisions.md, "Checkout orders on the dashboard": the merchant whose ordering app and kiosk
 * place orders through the checkout interface sees them on the dashboard beside the tills'
 * figures: orders by the day they were placed, refunds by the day of the refund, per shop, with
 * the period before; the same orders the order list finds for those days.
 */
describe.each(databases)('checkout orders on the dashboard (%s)', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let owner: PortalSession;
  let browser: TestBrowser;
  let baseUrl = '';
  const ownerEmail = `owner-${kind}@dashboard-orders.test`;
  const clients: Record<string, { id: number; accessToken: string; securitySecret: string }> = {};

  beforeAll(async () => {
    t = await startApp(kind);
    t.clock.ms = at(DAY1, '08:00');
    c = await setupCheckout(t);
    const merchant = `/merchants/${encodeURIComponent(c.serviceUserName)}`;
    owner = await newPortalSession(t, c.serviceUserName, {
      email: ownerEmail,
      password: PASSWORD,
      lang: 'de',
    });
    for (const name of ['Kiosk Eingang', 'Altes Terminal', 'Neuer Automat']) {
      const k = await t.admin('POST', `${merchant}/checkoutClients`, { name });
      expect(k.statusCode, k.body).toBe(201);
      clients[name] = k.json() as (typeof clients)[string];
    }
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** An order placed through one of the other checkout clients, signed with its secret. */
  const orderThrough = (name: string, body: Record<string, unknown>) => {
    const k = clients[name];
    if (!k) throw new Error(name);
    return signedOrder(t, k, body);
  };
  const dashboard = async (query: string): Promise<Orders> => {
    const res = await portalCall(t, owner, 'GET', `/dashboard?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { orders: Orders }).orders;
  };
  const shop = (orders: Orders, name: string) => orders?.byShop.find((s) => s.shop === name);

  it('counts the orders by the day they were placed and the refunds by the day of the refund, per shop', async () => {
    const ada = await c.profile({ balance: 10_000 });
    const bob = await c.profile({ balance: 5_000 });
    const place = async (time: number, through: string | null, body: Record<string, unknown>) => {
      t.clock.ms = time;
      const res = through === null ? await c.order(body) : await orderThrough(through, body);
      expect(res.statusCode, res.body).toBe(200);
      return body.basketId as string;
    };
    const charged = { balance: { requestCharge: true } };
    // Monday: 9.20 (web shop), 12.99 (kiosk), 2.20 (the old terminal) charged before noon; 6.60
    // (web shop) in the afternoon, not charged.
    const a = await place(at(DAY1, '09:00'), null, {
      ...orderBody(c, ada.card, [
        ['1001', 2],
        ['1002', 1],
      ]),
      totalGross: 920,
      ...charged,
    });
    const k = await place(at(DAY1, '10:00'), 'Kiosk Eingang', {
      ...orderBody(c, bob.card, [['1003', 1]]),
      totalGross: 1_299,
      ...charged,
    });
    await place(at(DAY1, '11:00'), 'Altes Terminal', {
      ...orderBody(c, bob.card, [['1002', 1]]),
      totalGross: 220,
      ...charged,
    });
    await place(at(DAY1, '15:00'), null, { ...orderBody(c, ada.card, [['1002', 3]]), totalGross: 660 });
    const old = clients['Altes Terminal']?.id ?? 0;
    const revoked = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(c.serviceUserName)}/checkoutClients/${old}/revoke`,
    );
    expect(revoked.statusCode, revoked.body).toBe(200);
    // Tuesday: 9.20 through the web shop; Monday's kiosk order given back whole, 3.00 of Monday's
    // first order and nothing of today's.
    await place(at(DAY2, '10:00'), null, {
      ...orderBody(c, ada.card, [
        ['1001', 2],
        ['1002', 1],
      ]),
      totalGross: 920,
      ...charged,
    });
    t.clock.ms = at(DAY2, '10:05');
    expect((await c.call('POST', `/api/v1/orders/${k}/refund`)).statusCode).toBe(200);
    t.clock.ms = at(DAY2, '10:10');
    expect((await c.call('POST', `/api/v1/orders/${a}/refund`, { amount: 300 })).statusCode).toBe(200);
    // Another merchant's order is not counted.
    const other = await setupCheckout(t);
    const theirs = await other.profile({ balance: 2_000 });
    const o = await other.order({ ...orderBody(other, theirs.card, [['1002', 1]]), totalGross: 220 });
    expect(o.statusCode, o.body).toBe(200);
    t.clock.ms = at(DAY2, '12:00');
    // Signed in on Tuesday: a session idle since Monday has expired.
    owner = await portalSession(t, ownerEmail, PASSWORD);

    const today = await dashboard('preset=today');
    expect(today?.totals).toEqual(figures(1, 920, 920, 2, 1_599));
    // The day before up to the same time of day: the afternoon's order is not yet in it.
    expect(today?.previous).toEqual(figures(3, 2_439, 2_439, 0, 0));
    // Every shop by name; the revoked one has nothing today, so it is not listed.
    expect(today?.byShop.map((s) => s.shop)).toEqual(['Kiosk Eingang', 'Neuer Automat', 'Web shop']);
    expect(shop(today, 'Kiosk Eingang')).toMatchObject(figures(0, 0, 0, 1, 1_299));
    expect(shop(today, 'Neuer Automat')).toMatchObject(figures(0, 0, 0, 0, 0));
    expect(shop(today, 'Web shop')).toMatchObject(figures(1, 920, 920, 1, 300));

    const monday = await dashboard('preset=yesterday');
    expect(monday?.totals).toEqual(figures(4, 3_099, 2_439, 0, 0));
    expect(shop(monday, 'Altes Terminal')).toMatchObject({ revoked: true, ...figures(1, 220, 220, 0, 0) });
    expect(shop(monday, 'Web shop')).toMatchObject(figures(2, 1_580, 920, 0, 0));
    const both = await dashboard(`from=${DAY1}&to=${DAY2}`);
    expect(both?.totals).toEqual(figures(5, 4_019, 3_359, 2, 1_599));
    // The shops' rows add up to the totals.
    const sum = both?.byShop.reduce((s, r) => s + r.netMinor, 0);
    expect(sum).toBe(both?.totals.netMinor);

    // The same orders as the order list finds for those days and that shop.
    const days = new URLSearchParams({
      limit: '100',
      from: new Date(at(DAY1, '00:00')).toISOString(),
      to: new Date(at('2026-11-11', '00:00')).toISOString(),
    });
    const listed = await portalCall(t, owner, 'GET', `/orders?${days.toString()}`);
    expect(listed.statusCode, listed.body).toBe(200);
    const rows = (listed.json() as { data: { totalGrossMinor: number; chargedMinor: number }[] }).data;
    expect([
      rows.length,
      rows.reduce((s, r) => s + r.totalGrossMinor, 0),
      rows.reduce((s, r) => s + r.chargedMinor, 0),
    ]).toEqual([5, 4_019, 3_359]);

    // Orders have no outlet: with one chosen, the figures are the outlet's alone.
    expect(await dashboard(`preset=today&outletId=${c.term.outletId}`)).toBeNull();
  });

  it('a merchant without checkout clients sees no orders', async () => {
    const term = await setupTerminal(t);
    const email = `tills-${kind}@dashboard-orders.test`;
    const session = await newPortalSession(t, term.serviceUserName, { email, password: PASSWORD });
    const res = await portalCall(t, session, 'GET', '/dashboard?preset=7d');
    expect((res.json() as { orders: Orders }).orders).toEqual({
      totals: figures(0, 0, 0, 0, 0),
      previous: figures(0, 0, 0, 0, 0),
      byShop: [],
      undeliveredReceiptMails: { refused: 0, givenUp: 0 },
    });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, { email, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/dashboard?preset=7d`);
    expect(await page.locator('#dashboard-orders').count()).toBe(0);
    await page.close();
  });

  it('on a phone, in German, the owner reads Monday’s orders per shop and opens the kiosk’s', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, { email: ownerEmail, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/dashboard?from=${DAY1}&to=${DAY1}`);
    const section = page.locator('#dashboard-orders');
    await section.scrollIntoViewIfNeeded();
    const text = (await section.textContent())?.replace(/\s+/g, ' ') ?? '';
    expect(text).toContain('Bestellungen aus Apps, Kiosk und Webshop');
    // 30,99 € ordered, 24,39 € charged, nothing refunded on Monday.
    expect(text).toContain('Bestellt abzüglich Erstattungen 30,99 €');
    expect(text).toContain('Belastet 24,39 €');
    const rows = page.locator('#dashboard-shops tbody tr');
    expect(await rows.allTextContents()).toHaveLength(4);
    expect((await rows.nth(0).textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      'Altes Terminal (Zugang gesperrt) 1 2,20 € 2,20 € 0,00 € 2,20 €',
    );
    await fitsWidth(page);
    // Every shop's figures in view, each under its column's name.
    await listFits(page, '#dashboard-shops');
    expect(await phoneLabelOf(rows.nth(0).locator('td').nth(3))).toBe('Belastet');
    await section.screenshot({
      path: join(
        SHOTS,
        kind === 'pglite' ? 'dashboard-orders-phone.png' : `dashboard-orders-phone-${kind}.png`,
      ),
    });
    await Promise.all([
      page.waitForURL(/\/portal\/orders\?/),
      rows.nth(1).getByRole('link', { name: 'Kiosk Eingang' }).click(),
    ]);
    const url = new URL(page.url());
    expect([url.searchParams.get('from'), url.searchParams.get('to')]).toEqual([DAY1, DAY1]);
    expect(url.searchParams.get('clientId')).toBe(String(clients['Kiosk Eingang']?.id));
    expect(await page.locator('#order-list tbody tr').count()).toBe(1);
    await fitsWidth(page);
    await page.close();
  });
});
