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
import { type CheckoutClient, orderBody, setupCheckout } from '../checkout/checkout-support.js';
import { type PortalSession, newPortalSession, portalCall, portalPage, signIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const SHOTS = screenshotDir('docs/portal', '.test-cache');

interface Detail {
  orderId: string;
  basketId: string;
  shop: string | null;
  profileId: number;
  customerName: string | null;
  totalGrossMinor: number;
  chargedMinor: number;
  refundedMinor: number;
  refundableMinor: number;
  state: string;
  consumptionMode: string;
  receiptUrl: string | null;
  balance: { beforeMinor: number; afterMinor: number } | null;
  positions: {
    positionId: number;
    plu: string;
    name: string | null;
    quantity: number;
    lineGrossMinor: number;
    discountMinor: number;
    amountMinor: number;
    vatRate: string;
    refundedQuantity: number;
    refundedMinor: number;
  }[];
  campaigns: {
    campaignId: number;
    name: string | null;
    pricedName: string | null;
    uses: number;
    discountMinor: number;
  }[];
  vats: { vatRate: string; grossMinor: number; netMinor: number; taxMinor: number }[];
  refunds: { refundId: string; amountMinor: number; createdAt: string; positions: unknown[] }[];
}

/**
 * docs/decisions.md, "One checkout order in the portal": the merchant opens one order placed
 * through the checkout interface and reads what it came to, the campaigns' discount per position,
 * what it charged to the customer's balance (before and after), each refund and what it took back,
 * the VAT, and the receipt; the same figures as the checkout interface reads the order back.
 */
describe.each(databases)('one checkout order in the portal (%s)', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let owner: PortalSession;
  let browser: TestBrowser;
  let baseUrl = '';
  const ownerEmail = `owner-${kind}@order-detail.test`;
  let paid = { orderId: '', basketId: '', profileId: 0 };
  let campaignId = 0;
  let unpaid = { orderId: '', basketId: '' };

  beforeAll(async () => {
    t = await startApp(kind);
    c = await setupCheckout(t);
    const merchant = `/merchants/${encodeURIComponent(c.serviceUserName)}`;
    owner = await newPortalSession(t, c.serviceUserName, {
      email: ownerEmail,
      password: PASSWORD,
      lang: 'de',
    });
    const campaign = await t.admin('POST', `${merchant}/campaigns`, {
      name: 'Zehn Prozent auf 1001',
      type: 'product',
      discount: { percent: 10 },
      products: [{ plu: '1001' }],
    });
    expect(campaign.statusCode, campaign.body).toBe(201);
    campaignId = (campaign.json() as { id: number }).id;
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const detail = async (orderId: string): Promise<Detail> => {
    const res = await portalCall(t, owner, 'GET', `/orders/${encodeURIComponent(orderId)}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Detail;
  };
  const orderIdOf = async (basketId: string) => {
    const res = await portalCall(t, owner, 'GET', `/orders?number=${basketId}`);
    return (res.json() as { data: { orderId: string }[] }).data[0]?.orderId ?? '';
  };

  it('shows the order as priced, its charge of the balance and each refund, as the checkout interface reads it back', async () => {
    const ada = await c.profile({ balance: 5_000 });
    // 2 x 1001 at 3.50 less 10 % = 6.30; 1 x 1002 = 2.20: 8.50, charged.
    const body = orderBody(
      c,
      ada.card,
      [
        ['1001', 2],
        ['1002', 1],
      ],
      { totalGross: 850, balance: { requestCharge: true } },
    );
    const placed = await c.order(body);
    expect(placed.statusCode, placed.body).toBe(200);
    const basketId = body.basketId as string;
    t.clock.advance(3_600_000);
    const back = await c.call('POST', `/api/v1/orders/${basketId}/refund`, {
      positions: [{ positionId: 2, quantity: 1 }],
    });
    expect(back.statusCode, back.body).toBe(200);
    t.clock.advance(60_000);
    const amount = await c.call('POST', `/api/v1/orders/${basketId}/refund`, { amount: 100 });
    expect(amount.statusCode, amount.body).toBe(200);
    paid = { orderId: await orderIdOf(basketId), basketId, profileId: ada.id };

    const d = await detail(paid.orderId);
    expect(d).toMatchObject({
      basketId,
      shop: 'Web shop',
      profileId: ada.id,
      customerName: 'Ada Lovelace',
      totalGrossMinor: 850,
      chargedMinor: 850,
      refundedMinor: 320,
      refundableMinor: 530,
      state: 'partially_refunded',
      consumptionMode: 'OnPremise',
      balance: { beforeMinor: 5_000, afterMinor: 4_150 },
    });
    expect(d.positions).toEqual([
      {
        positionId: 1,
        plu: '1001',
        name: 'Article 1001',
        quantity: 2,
        lineGrossMinor: 700,
        discountMinor: 70,
        amountMinor: 630,
        vatRate: '19',
        refundedQuantity: 0,
        refundedMinor: 0,
      },
      {
        positionId: 2,
        plu: '1002',
        name: 'Article 1002',
        quantity: 1,
        lineGrossMinor: 220,
        discountMinor: 0,
        amountMinor: 220,
        vatRate: '7',
        refundedQuantity: 1,
        refundedMinor: 220,
      },
    ]);
    expect(d.refunds.map((r) => [r.amountMinor, r.positions])).toEqual([
      [220, [{ positionId: 2, quantity: 1, amountMinor: 220 }]],
      [100, []],
    ]);
    // The checkout interface's own read-back of the order: the same money, VAT and refunds.
    const read = (await c.call('GET', `/api/v1/orders/${basketId}`)).json() as {
      totalGross: number;
      positions: { positionId: number; price: number }[];
      vats: { rate: number; gross: number; net: number; taxAmount: number }[];
      balance: { oldAmount: number; newAmount: number };
      refunds: { id: string; amount: number; createdAt: string }[];
      receiptUrl: string;
    };
    expect(d.positions.map((p) => [p.positionId, p.amountMinor])).toEqual(
      read.positions.map((p) => [p.positionId, p.price]),
    );
    expect(d.vats.map((v) => [Number(v.vatRate), v.grossMinor, v.netMinor, v.taxMinor])).toEqual(
      read.vats.map((v) => [v.rate, v.gross, v.net, v.taxAmount]),
    );
    expect([d.balance?.beforeMinor, d.balance?.afterMinor]).toEqual([
      read.balance.oldAmount,
      read.balance.newAmount,
    ]);
    expect(d.refunds.map((r) => [r.refundId, r.amountMinor, r.createdAt])).toEqual(
      read.refunds.map((r) => [r.id, r.amount, r.createdAt]),
    );
    expect(read.receiptUrl.endsWith(d.receiptUrl ?? 'none')).toBe(true);

    // An order not charged: no movement of the balance, nothing refundable.
    const other = orderBody(c, ada.card, [['1004', 1]], { totalGross: 100, consumptionMode: 'Takeaway' });
    expect((await c.order(other)).statusCode).toBe(200);
    unpaid = { orderId: await orderIdOf(other.basketId as string), basketId: other.basketId as string };
    expect(await detail(unpaid.orderId)).toMatchObject({
      chargedMinor: 0,
      refundableMinor: 0,
      balance: null,
      consumptionMode: 'Takeaway',
      state: 'completed',
      refunds: [],
    });
  });

  it("a campaign renamed after the order: the page names it as it is called now and as the customer's receipt shows it", async () => {
    const merchant = `/merchants/${encodeURIComponent(c.serviceUserName)}`;
    const before = await detail(paid.orderId);
    expect(before.campaigns).toEqual([
      {
        campaignId,
        name: 'Zehn Prozent auf 1001',
        pricedName: 'Zehn Prozent auf 1001',
        uses: 2,
        discountMinor: 70,
      },
    ]);
    const renamed = await t.admin('PUT', `${merchant}/campaigns/${campaignId}`, {
      name: 'Kaffee-Woche',
      type: 'product',
      discount: { percent: 10 },
      products: [{ plu: '1001' }],
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((await detail(paid.orderId)).campaigns).toEqual([
      { campaignId, name: 'Kaffee-Woche', pricedName: 'Zehn Prozent auf 1001', uses: 2, discountMinor: 70 },
    ]);
    const page = await portalPage(t, owner, `/portal/orders/${encodeURIComponent(paid.orderId)}`);
    const named = /<p id="order-campaigns">([\s\S]*?)<\/p>/.exec(page.body)?.[1] ?? '';
    expect(
      named
        .replace(/<[^>]*>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    ).toBe('Aktionen: Kaffee-Woche (auf dem Beleg als „Zehn Prozent auf 1001“) −0,70 €');
  });

  it("another merchant's order, an unknown one and the shop's basketId in place of the id are not found", async () => {
    const them = await setupCheckout(t);
    const card = (await them.profile({ balance: 1_000 })).card;
    const body = orderBody(them, card, [['1002', 1]], { totalGross: 220 });
    expect((await them.order(body)).statusCode).toBe(200);
    const theirs = await t.database.db
      .selectFrom('checkout_orders')
      .select('id')
      .where('basket_id', '=', body.basketId as string)
      .executeTakeFirstOrThrow();
    for (const id of [theirs.id, 'ord_unknown', paid.basketId]) {
      const res = await portalCall(t, owner, 'GET', `/orders/${encodeURIComponent(id)}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });

  it('on a phone, in German, the owner opens the order from the list and reads its positions, refunds and receipt', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, { email: ownerEmail, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/orders`);
    await Promise.all([
      page.waitForURL(/\/portal\/orders\/ord_/),
      page.getByRole('link', { name: paid.basketId }).click(),
    ]);
    expect(page.url()).toContain(`/portal/orders/${paid.orderId}`);
    const text = async (selector: string) =>
      (await page.locator(selector).textContent())?.replace(/\s+/g, ' ').trim();
    expect(await text('#order-total')).toBe('8,50 €');
    expect(await text('#order-refunded')).toBe('3,20 €');
    expect(await text('#order-balance')).toBe('50,00 € → 41,50 €');
    const first = page.locator('#order-positions tbody tr').first();
    expect(await first.textContent().then((x) => x?.replace(/\s+/g, ' ').trim())).toBe(
      '1 Article 1001 1001 2 7,00 € −0,70 € 6,30 € 19 %',
    );
    // Each position a card: its amount beside its number, every value under its column's name.
    await listFits(page, '#order-positions');
    expect(await phoneLabelOf(first.locator('td').nth(5))).toBe('Betrag');
    expect((await first.locator('td').nth(5).boundingBox())?.y).toBe(
      (await first.locator('td').nth(0).boundingBox())?.y,
    );
    const refunds = page.locator('#order-refunds li');
    expect(await refunds.count()).toBe(2);
    const refundText = async (i: number) => (await refunds.nth(i).textContent())?.replace(/\s+/g, ' ');
    expect(await refundText(0)).toContain('2,20 € · 1 × Article 1002');
    expect(await refundText(1)).toContain('1,00 € · ein Betrag, keine Positionen');
    await fitsWidth(page);
    await page.screenshot({
      path: join(SHOTS, kind === 'pglite' ? 'order-phone.png' : `order-phone-${kind}.png`),
      fullPage: true,
    });
    await Promise.all([
      page.waitForURL(/\/receipts\//),
      page.getByRole('link', { name: 'Beleg öffnen' }).click(),
    ]);
    await page.goBack();
    await Promise.all([
      page.waitForURL(/\/portal\/orders\?profileId=/),
      page.getByRole('link', { name: 'Alle Bestellungen dieses Kunden' }).click(),
    ]);
    expect(await page.locator('#order-list tbody tr').count()).toBe(2);

    // The order not charged says so; an unknown order is the portal's page not found.
    await page.goto(`${baseUrl}/portal/orders/${unpaid.orderId}`);
    expect(await text('#order-balance')).toBe('Nicht belastet: anders bezahlt');
    const missing = await page.goto(`${baseUrl}/portal/orders/ord_unknown`);
    expect(missing?.status()).toBe(404);
    await page.close();
  });
});
