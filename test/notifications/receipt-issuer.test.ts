import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type CheckoutClient, orderBody, setupCheckout } from '../checkout/checkout-support.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { giftCard, profileWithCard, receiptBasket, uniqueId, uploadAndGrant } from './support.js';

const DETAILS = {
  legalName: 'Café Müller GmbH',
  address: 'Hauptstraße 1\n10115 Berlin',
  taxNumber: 'DE123456789',
};

/** The page's text without tags, spaces collapsed. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\s+/g, ' ')
    .replace(/ +/g, ' ');

describe.each(databases)('a receipt a shop can hand out, on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let shop: CheckoutClient;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    shop = await setupCheckout(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const receiptOf = async (unit: string, basketId: string): Promise<string> => {
    const row = await t.database.db
      .selectFrom('baskets')
      .select('grant_result')
      .where('tracking_unit_id', '=', unit)
      .where('basket_id', '=', basketId)
      .executeTakeFirstOrThrow();
    const res = await t.app.inject({
      method: 'GET',
      url: `/receipts/${row.grant_result?.receiptId}?lang=en`,
    });
    expect(res.statusCode).toBe(200);
    return res.body;
  };
  const setDetails = async (serviceUserName: string, body: object) => {
    const res = await t.admin(
      'PUT',
      `/merchants/${encodeURIComponent(serviceUserName)}/receiptDetails`,
      body,
    );
    expect(res.statusCode, res.body).toBe(200);
  };

  it("shows the bill number, the merchant's legal name, address and VAT id, the outlet, the time, and how the till was paid", async () => {
    await setDetails(term.serviceUserName, DETAILS);
    const who = await profileWithCard(t, term, { language: 'en' });
    const gift = await giftCard(term);
    const cards = tokens(term);
    expect((await cards.add(who.cardId, '20.00')).statusCode).toBe(200);
    expect((await cards.add(gift, '10.00')).statusCode).toBe(200);
    const basketId = uniqueId('issuer');
    const up = await term.pos('POST', `/baskets/${basketId}`, {
      query: { consumerIdentToken: who.cardId, giftCardId: gift },
      body: receiptBasket(false),
    });
    expect(up.statusCode, up.body).toBe(200);
    // While the basket is open the till takes 5.00 from the balance and 3.00 from the gift card;
    // the rest of the 9.20 it took otherwise.
    expect((await cards.withdraw(who.cardId, '5.00')).statusCode).toBe(200);
    expect((await cards.withdraw(gift, '3.00')).statusCode).toBe(200);
    const grant = await term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    const html = await receiptOf(term.trackingUnitId, basketId);
    expect(html).toContain(
      '<address class="issuer"><span class="legal-name">Café Müller GmbH</span><br /><span>Hauptstraße 1</span><br /><span>10115 Berlin</span><br /><span>VAT ID: <span class="tax-number">DE123456789</span></span></address>',
    );
    const text = textOf(html);
    expect(text).toContain(`Bill no.: R-1001`);
    expect(text).toContain('Store: Main street');
    expect(text).toContain('Time: 2 Mar 2026, 16:59');
    expect(text).toMatch(/2 × Cappuccino|Cappuccino .*2/);
    expect(text).toMatch(
      /Total €9\.20 Paid from balance €5\.00 Paid with gift card €3\.00 Paid otherwise €1\.20/,
    );
    expect(text).toMatch(/19 % €5\.88 €1\.12 €7\.00/);
  });

  it('without a BillNumber the bill number is the basket id; a basket paid otherwise shows its whole total so', async () => {
    const basketId = uniqueId('no-bill-number');
    const { BillNumber: _, ...body } = receiptBasket(false);
    await uploadAndGrant(term, basketId, {}, body);
    const text = textOf(await receiptOf(term.trackingUnitId, basketId));
    expect(text).toContain(`Bill no.: ${basketId}`);
    expect(text).toMatch(/Total €9\.20 Paid otherwise €9\.20/);
    expect(text).not.toContain('Paid from balance');
  });

  it("with none of the settings the receipt shows the merchant's name only: no issuer block, no empty label", async () => {
    const plain = await setupTerminal(t);
    const basketId = uniqueId('plain');
    await uploadAndGrant(plain, basketId, {}, receiptBasket(false));
    const html = await receiptOf(plain.trackingUnitId, basketId);
    expect(html).toContain(`<h1>${plain.serviceUserName}</h1>`);
    expect(html).not.toContain('<address');
    expect(html).not.toContain('VAT ID');
    // Only the VAT id set: that line alone.
    await setDetails(plain.serviceUserName, { taxNumber: 'ATU12345678' });
    const only = await receiptOf(plain.trackingUnitId, basketId);
    expect(only).toContain(
      '<address class="issuer"><span>VAT ID: <span class="tax-number">ATU12345678</span></span></address>',
    );
  });

  it('a checkout order paid from the balance: its basket id as the bill number, the issuer, "Paid from balance"', async () => {
    await setDetails(shop.serviceUserName, DETAILS);
    const p = await shop.profile({ balance: 10_000 });
    const body = orderBody(shop, p.card, [['1001', 2]], {
      totalGross: 700,
      balance: { requestCharge: true },
    });
    const res = await shop.order(body);
    expect(res.statusCode, res.body).toBe(200);
    const page = await t.app.inject({
      method: 'GET',
      url: `${new URL(res.json().receiptUrl).pathname}?lang=en`,
    });
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain(`Bill no.: ${String(body.basketId)}`);
    expect(text).toContain('Café Müller GmbH Hauptstraße 1 10115 Berlin VAT ID: DE123456789');
    expect(text).toContain('Store: Web shop');
    expect(text).toMatch(/Total €7\.00 Paid from balance €7\.00/);
  });
});
