import { readFileSync } from 'node:fs';
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
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, orderBody, setupCheckout, placeOrder } from '../checkout/checkout-support.js';
import { type PortalSession, portalCall, portalSession, signIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const SHOTS = screenshotDir('docs/portal', '.test-cache');

interface Listed {
  orderId: string;
  basketId: string;
  clientId: number;
  shop: string | null;
  profileId: number;
  customerName: string | null;
  createdAt: string;
  totalGrossMinor: number;
  chargedMinor: number;
  refundedMinor: number;
  state: string;
  receiptUrl: string | null;
}
type Page = { data: Listed[]; hasMore: boolean; nextCursor: string | null };

/**
 * docs/decisions.md, "Finding checkout orders": a merchant whose ordering app or web shop places
 * orders through the checkout interface finds each one in the portal, by its id or the shop's
 * order number, its time, shop, customer and state, with what it charged and gave back.
 */
describe.each(databases)('checkout orders in the portal (%s)', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let owner: PortalSession;
  let browser: TestBrowser;
  let baseUrl = '';
  const ownerEmail = `owner-${kind}@orders.test`;
  /** The orders placed, oldest first. */
  const placed: { basketId: string; profileId: number; shop: string; total: number; charged: number }[] = [];
  let kiosk = { id: 0, accessToken: '', securitySecret: '' };
  let adaCard = '';

  beforeAll(async () => {
    t = await startApp(kind);
    c = await setupCheckout(t);
    const users = `/merchants/${encodeURIComponent(c.serviceUserName)}/portalUsers`;
    const made = await t.admin('POST', users, { email: ownerEmail, password: PASSWORD, lang: 'de' });
    expect(made.statusCode, made.body).toBe(201);
    owner = await portalSession(t, ownerEmail, PASSWORD);
    const k = await t.admin('POST', `/merchants/${encodeURIComponent(c.serviceUserName)}/checkoutClients`, {
      name: 'Kiosk Eingang',
    });
    expect(k.statusCode, k.body).toBe(201);
    kiosk = k.json() as typeof kiosk;
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const list = async (query: string): Promise<Page> => {
    const res = await portalCall(t, owner, 'GET', `/orders?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Page;
  };
  const every = async (query: string) => (await list(`limit=100&${query}`)).data.map((o) => o.basketId);

  it('lists every order of the merchant newest first, with its shop, customer, money and receipt', async () => {
    const ada = await c.profile({ balance: 10_000 });
    const bob = await c.profile({ balance: 5_000 });
    adaCard = ada.card;
    // 2 x 1001 (7.00) + 1 x 1002 (2.20) = 9.20; 1 x 1003 = 12.99; 3 x 1002 = 6.60.
    const orders: [
      CheckoutClient | null,
      { id: number; card: string },
      [string, number][],
      number,
      boolean,
    ][] = [
      [
        c,
        ada,
        [
          ['1001', 2],
          ['1002', 1],
        ],
        920,
        true,
      ],
      [null, bob, [['1003', 1]], 1_299, true],
      [c, ada, [['1002', 3]], 660, false],
      [
        null,
        ada,
        [
          ['1001', 2],
          ['1002', 1],
        ],
        920,
        true,
      ],
      [c, bob, [['1003', 1]], 1_299, true],
    ];
    for (const [client, who, positions, total, charge] of orders) {
      t.clock.advance(60_000);
      placed.push({
        basketId: await placeOrder(t, c, client ? null : kiosk, who.card, positions, total, charge),
        profileId: who.id,
        shop: client ? 'Web shop' : 'Kiosk Eingang',
        total,
        charged: charge ? total : 0,
      });
    }
    // One given back in part, one whole.
    const part = await c.call('POST', `/api/v1/orders/${placed[0]?.basketId}/refund`, { amount: 300 });
    expect(part.statusCode, part.body).toBe(200);
    const whole = await c.call('POST', `/api/v1/orders/${placed[1]?.basketId}/refund`);
    expect(whole.statusCode, whole.body).toBe(200);

    // Another merchant's order is not among them.
    const other = await setupCheckout(t);
    const theirs = await other.profile({ balance: 2_000 });
    expect(
      (await other.order(orderBody(other, theirs.card, [['1002', 1]], { totalGross: 220 }))).statusCode,
    ).toBe(200);

    const page = await list('limit=100');
    expect(page.hasMore).toBe(false);
    expect(page.data.map((o) => o.basketId)).toEqual(placed.map((p) => p.basketId).reverse());
    const first = page.data.at(-1);
    expect(first).toMatchObject({
      shop: 'Web shop',
      profileId: placed[0]?.profileId,
      customerName: 'Ada Lovelace',
      totalGrossMinor: 920,
      chargedMinor: 920,
      refundedMinor: 300,
      state: 'partially_refunded',
      receiptUrl: expect.stringMatching(/^\/receipts\/[A-Za-z0-9_-]{22,}$/),
    });
    expect(page.data.at(-2)).toMatchObject({
      shop: 'Kiosk Eingang',
      chargedMinor: 1_299,
      refundedMinor: 1_299,
      state: 'refunded',
    });
    expect(page.data.at(-3)).toMatchObject({ chargedMinor: 0, refundedMinor: 0, state: 'completed' });
    // The figures are the checkout interface's own read-back of each order.
    for (const o of page.data) {
      const read = (await c.call('GET', `/api/v1/orders/${o.basketId}`)).json() as {
        status: string;
        totalGross: number;
        refundedAmount: number;
        receiptUrl: string;
      };
      expect([o.state, o.totalGrossMinor, o.refundedMinor]).toEqual([
        read.status,
        read.totalGross,
        read.refundedAmount,
      ]);
      expect(read.receiptUrl.endsWith(o.receiptUrl ?? 'none')).toBe(true);
    }
    // The receipt link opens the order's receipt.
    const receipt = await t.app.inject({ method: 'GET', url: first?.receiptUrl ?? '' });
    expect(receipt.statusCode).toBe(200);
  });

  it('finds an order by its id or the shop’s number, and by shop, customer, state and time; pages by cursor', async () => {
    const all = (await list('limit=100')).data;
    const oldest = all.at(-1);
    expect(await every(`number=${oldest?.orderId}`)).toEqual([oldest?.basketId]);
    expect(await every(`number=${oldest?.basketId}`)).toEqual([oldest?.basketId]);
    expect(await every('number=no-such-order')).toEqual([]);
    const kioskOnes = placed
      .filter((p) => p.shop === 'Kiosk Eingang')
      .map((p) => p.basketId)
      .reverse();
    expect(await every(`clientId=${kiosk.id}`)).toEqual(kioskOnes);
    const ada = placed[0]?.profileId ?? 0;
    expect(await every(`profileId=${ada}`)).toEqual(
      placed
        .filter((p) => p.profileId === ada)
        .map((p) => p.basketId)
        .reverse(),
    );
    expect(await every('state=refunded')).toEqual([placed[1]?.basketId]);
    expect(await every('state=partially_refunded')).toEqual([placed[0]?.basketId]);
    expect(await every('state=completed')).toEqual(
      placed
        .slice(2)
        .map((p) => p.basketId)
        .reverse(),
    );
    // Placed one minute apart: from the third one's time on.
    const third = all.at(-3);
    expect(await every(`from=${encodeURIComponent(third?.createdAt ?? '')}`)).toEqual(
      placed
        .slice(2)
        .map((p) => p.basketId)
        .reverse(),
    );
    expect(await every(`to=${encodeURIComponent(third?.createdAt ?? '')}`)).toEqual(
      placed
        .slice(0, 2)
        .map((p) => p.basketId)
        .reverse(),
    );

    const seen: string[] = [];
    let query = 'limit=2';
    for (;;) {
      const p = await list(query);
      seen.push(...p.data.map((o) => o.basketId));
      if (!p.hasMore) break;
      query = `limit=2&cursor=${encodeURIComponent(p.nextCursor ?? '')}`;
    }
    expect(seen).toEqual(all.map((o) => o.basketId));

    for (const bad of ['state=open', 'clientId=0', 'limit=0', 'cursor=not-a-cursor']) {
      const res = await portalCall(t, owner, 'GET', `/orders?${bad}`);
      expect(res.statusCode, bad).toBe(400);
    }
  });

  it('on a phone, in German, the owner finds the refunded order and the page sums the money it shows, within the width', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, { email: ownerEmail, password: PASSWORD });
    await page.getByRole('link', { name: 'Bestellungen', exact: true }).click();
    await page.waitForURL(/\/portal\/orders/);
    const rows = page.locator('#order-list tbody tr');
    expect(await rows.count()).toBe(placed.length);
    // 9.20 + 12.99 + 6.60 + 9.20 + 12.99 ordered; all but the 6.60 charged; 3.00 + 12.99 given back.
    expect((await page.locator('#order-sums').textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      'Bestellungen auf dieser Seite: 5; 50,98 € bestellt, 44,38 € belastet, 15,99 € erstattet.',
    );
    await fitsWidth(page);
    // Each order a card of its own on the phone: the amounts and the state in view, every value under
    // its column's name, the state beside the time on the card's first line.
    await listFits(page, '#order-list');
    const cells = rows.first().locator('td');
    expect(await phoneLabelOf(cells.nth(4))).toBe('Summe');
    expect(await phoneLabelOf(cells.nth(7))).toBe('Status');
    expect((await cells.nth(7).boundingBox())?.y).toBe((await cells.nth(0).boundingBox())?.y);
    await page.screenshot({
      path: join(SHOTS, kind === 'pglite' ? 'orders-phone.png' : `orders-phone-${kind}.png`),
      fullPage: true,
    });

    await page.getByLabel('Status').selectOption({ label: 'Erstattet' });
    await Promise.all([
      page.waitForURL(/state=refunded/),
      page.getByRole('button', { name: 'Suchen' }).click(),
    ]);
    expect(await rows.count()).toBe(1);
    const row = rows.first();
    expect(await row.locator('td').nth(2).textContent()).toContain('Kiosk Eingang');
    expect((await row.locator('td').nth(7).textContent())?.trim()).toBe('Erstattet');
    await fitsWidth(page);
    // The orders found, downloaded as CSV with the page's filter: the one refunded order.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Alle gefundenen Bestellungen als CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('orders.csv');
    const csv = readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    expect(csv).toHaveLength(2);
    expect(csv[1]).toContain(`,${placed[1]?.basketId},`);
    expect(csv[1]).toMatch(
      /,Kiosk Eingang,.*,12\.99,12\.99,12\.99,refunded,EUR,https?:\/\/[^,]+\/receipts\//,
    );
    // The order's number opens the order (its page links the receipt); the customer's name their page.
    await Promise.all([
      page.waitForURL(/\/portal\/orders\/ord_/),
      row.getByRole('link', { name: placed[1]?.basketId ?? '' }).click(),
    ]);
    await Promise.all([
      page.waitForURL(/\/receipts\//),
      page.getByRole('link', { name: 'Beleg öffnen' }).click(),
    ]);
    await page.goBack();
    await page.goBack();
    await Promise.all([
      page.waitForURL(/\/portal\/profiles\/\d+/),
      rows.first().getByRole('link', { name: 'Ada Lovelace' }).click(),
    ]);
    expect(page.url()).toContain(`/portal/profiles/${placed[1]?.profileId}`);

    // From the customer's card, all of the customer's orders; the filters keep to them.
    const ada = placed[0]?.profileId ?? 0;
    const adas = placed.filter((p) => p.profileId === ada).map((p) => p.basketId);
    await page.goto(`${baseUrl}/portal/cards?tokenId=${encodeURIComponent(adaCard)}`);
    await Promise.all([
      page.waitForURL(/\/portal\/orders\?profileId=/),
      page.getByRole('link', { name: 'Alle Bestellungen dieses Kunden →' }).click(),
    ]);
    expect(await rows.count()).toBe(adas.length);
    expect((await page.locator('#order-customer').textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      'Nur die Bestellungen von Ada Lovelace · Alle Bestellungen',
    );
    await page.getByLabel('Status').selectOption({ label: 'Teilweise erstattet' });
    await Promise.all([
      page.waitForURL(/state=partially_refunded/),
      page.getByRole('button', { name: 'Suchen' }).click(),
    ]);
    expect(page.url()).toContain(`profileId=${ada}`);
    expect(await rows.count()).toBe(1);
    await fitsWidth(page);
    await Promise.all([
      page.waitForURL(/\/portal\/orders$/),
      page.locator('#order-customer').getByRole('link', { name: 'Alle Bestellungen' }).click(),
    ]);
    expect(await rows.count()).toBe(placed.length);

    await page.goto(`${baseUrl}/portal/orders?number=nothing-like-it`);
    expect(await page.locator('.empty').textContent()).toContain('Keine Bestellung gefunden');
    await page.context().close();
  });

  it('sums every order the filters find, on every page; the page shows it when the orders fill more than one', async () => {
    type Totals = { orders: number; totalGrossMinor: number; chargedMinor: number; refundedMinor: number };
    const totals = async (query: string) => {
      const res = await portalCall(t, owner, 'GET', `/orders/totals?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Totals;
    };
    /** The same sums over every page of the list, two orders a page. */
    const paged = async (query: string) => {
      const sum: Totals = { orders: 0, totalGrossMinor: 0, chargedMinor: 0, refundedMinor: 0 };
      let cursor = '';
      for (;;) {
        const p = await list(`limit=2&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        for (const o of p.data) {
          sum.orders += 1;
          sum.totalGrossMinor += o.totalGrossMinor;
          sum.chargedMinor += o.chargedMinor;
          sum.refundedMinor += o.refundedMinor;
        }
        if (!p.hasMore) return sum;
        cursor = p.nextCursor ?? '';
      }
    };
    const ada = placed[0]?.profileId ?? 0;
    for (const query of [
      '',
      `clientId=${kiosk.id}`,
      `profileId=${ada}`,
      'state=partially_refunded',
      'state=completed',
    ]) {
      expect(await totals(query), query).toEqual(await paged(query));
    }
    expect(await totals('')).toEqual({
      orders: 5,
      totalGrossMinor: 5_098,
      chargedMinor: 4_438,
      refundedMinor: 1_599,
    });
    expect((await portalCall(t, owner, 'GET', '/orders/totals?state=open')).statusCode).toBe(400);

    // 50 orders more of 1.00, not charged: 55 in all, more than a page of 50.
    const bob = await c.profile();
    for (let i = 0; i < 50; i++) {
      t.clock.advance(1_000);
      const res = await c.order(orderBody(c, bob.card, [['1004', 1]], { totalGross: 100 }));
      expect(res.statusCode, res.body).toBe(200);
    }
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, { email: ownerEmail, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/orders`);
    const line = async (id: string) => (await page.locator(id).textContent())?.replace(/\s+/g, ' ').trim();
    // 50.98 + 50 x 1.00 ordered; 44.38 charged; 15.99 refunded.
    expect(await line('#order-totals')).toBe(
      'Alle gefundenen Bestellungen, auf allen Seiten: 55; 100,98 € bestellt, 44,38 € belastet, 15,99 € erstattet.',
    );
    expect(await line('#order-sums')).toBe(
      'Bestellungen auf dieser Seite: 50; 50,00 € bestellt, 0,00 € belastet, 0,00 € erstattet.',
    );
    await fitsWidth(page);
    // One page only: the page's own sums say it all.
    await page.goto(`${baseUrl}/portal/orders?clientId=${kiosk.id}`);
    expect(await page.locator('#order-totals').count()).toBe(0);
    await page.close();
  });
});
