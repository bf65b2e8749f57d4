import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestBrowser, fitsWidth, openChromium, screenshotDir, serve } from '../support/browser.js';
import { type CheckoutClient, orderBody, setupCheckout, topUp } from '../checkout/checkout-support.js';
import { type TestApp, databases } from '../support/harness.js';
import {
  type MailCatcher,
  appWithMail,
  eventually,
  profileWithCard,
  receiptBasket,
  uniqueId,
  uploadAndGrant,
} from './support.js';

// docs/decisions.md, "Receipts": the discounts named. A position's "Discount" on the receipt, the
// purchase mail and the push says which campaign gave it: under the positions, each campaign with
// its share of the discounts the prices already hold, named as when the purchase was priced.
describe.each(databases)('the campaigns behind the discounts named on the receipt on %s', (kind) => {
  const running = appWithMail(kind);
  let t: TestApp;
  let smtp: MailCatcher;
  let shop: CheckoutClient;
  let campaignId: number;
  let browser: TestBrowser;
  let baseUrl: string;
  const tenOff = {
    name: 'Ten off 1001',
    type: 'product',
    discount: { percent: 10 },
    products: [{ plu: '1001' }],
  };
  beforeAll(async () => {
    ({ t, smtp } = running);
    shop = await setupCheckout(t);
    const c = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(shop.serviceUserName)}/campaigns`,
      tenOff,
    );
    expect(c.statusCode, c.body).toBe(201);
    campaignId = (c.json() as { id: number }).id;
    baseUrl = await serve(t);
    browser = await openChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The one purchase mail sent to the address, once it came. */
  const onlyMailTo = async (email: string) => {
    const [mail] = await eventually(() => {
      const found = smtp.mails.filter((m) => JSON.stringify(m.to).includes(email));
      expect(found).toHaveLength(1);
      return found;
    });
    return mail;
  };
  const receiptPath = (answer: string) =>
    new URL((JSON.parse(answer) as { receiptUrl: string }).receiptUrl).pathname;
  const page = async (path: string, lang = 'en') =>
    (await t.app.inject({ method: 'GET', url: `${path}?lang=${lang}` })).body;
  /** The rows under the positions that name a discount: their text and amount, as the page shows them. */
  const namedRows = (html: string) =>
    [
      ...html.matchAll(
        /<tr class="included">\s*<td colspan="2">([^<]*)<\/td>\s*<td class="num muted">([^<]*)<\/td>/g,
      ),
    ].map((m) => [m[1], m[2]]);

  /** The VAT table's rows as the page shows them: rate, net, tax, gross. */
  const vatRows = (html: string) =>
    [
      ...(/<table aria-label="VAT">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '').matchAll(
        /<td>([^<]*)<\/td>\s*<td class="num">([^<]*)<\/td>\s*<td class="num">([^<]*)<\/td>\s*<td class="num">([^<]*)<\/td>/g,
      ),
    ].map((m) => m.slice(1));

  /** The receipt page of a basket of the shop's till, as the merchant's basket read links it. */
  const tillReceiptPage = async (of: CheckoutClient, basketId: string, lang = 'en') => {
    const u = encodeURIComponent(of.serviceUserName);
    const read = await t.admin('GET', `/merchants/${u}/baskets/${of.term.trackingUnitId}/${basketId}`);
    expect(read.statusCode, read.body).toBe(200);
    return page(new URL((read.json() as { receiptUrl: string }).receiptUrl).pathname, lang);
  };

  /** A shop of its own whose campaign takes 2.00 off every bill. */
  async function shopTakingTwoOffTheBill(): Promise<CheckoutClient> {
    const other = await setupCheckout(t);
    const c = await t.admin('POST', `/merchants/${encodeURIComponent(other.serviceUserName)}/campaigns`, {
      name: 'Two off',
      type: 'bill',
      discount: { amount: 2 },
    });
    expect(c.statusCode, c.body).toBe(201);
    return other;
  }

  /** A consumer with an address in English, a customer card and 50.00 on the balance. */
  async function consumer() {
    const who = await profileWithCard(t, shop.term, { language: 'en', fullName: 'Ada Muster' });
    await topUp(shop, who.cardId, 5000);
    return who;
  }

  it("an order's receipt and mail name the campaign behind a position's discount, with its amount; renamed later, the receipt keeps the name it was given under", async () => {
    const who = await consumer();
    // 1 × 3.50 less 10 % (0.35) + 2 × 2.20 = 7.55.
    const body = orderBody(
      shop,
      who.cardId,
      [
        ['1001', 1],
        ['1002', 2],
      ],
      { totalGross: 755, balance: { requestCharge: true } },
    );
    const placed = await shop.order(body);
    expect(placed.statusCode, placed.body).toBe(200);
    const path = receiptPath(placed.body);
    const html = await page(path);
    expect(html).toContain('Discount −€0.35');
    // The rates as the tills' receipts write them, with their per cent sign.
    expect(vatRows(html)).toEqual([
      ['7\u00a0%', '€4.11', '€0.29', '€4.40'],
      ['19\u00a0%', '€2.65', '€0.50', '€3.15'],
    ]);
    expect(namedRows(html)).toEqual([['Discount “Ten off 1001” (in the prices above)', '−€0.35']]);
    const mail = await onlyMailTo(who.email);
    expect(mail?.text).toContain('Discount “Ten off 1001” (in the prices above): −€0.35');
    expect(mail?.text).toContain('Total: €7.55');

    const u = encodeURIComponent(shop.serviceUserName);
    const renamed = await t.admin('PUT', `/merchants/${u}/campaigns/${campaignId}`, {
      ...tenOff,
      name: 'Coffee week',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(namedRows(await page(path))).toEqual([
      ['Discount “Ten off 1001” (in the prices above)', '−€0.35'],
    ]);

    // An order whose pricing kept its campaigns without their names reads them as they are now.
    const row = await t.database.db
      .selectFrom('checkout_orders')
      .select(['id', 'priced'])
      .where('basket_id', '=', String(body.basketId))
      .executeTakeFirstOrThrow();
    const kept = row.priced as unknown as { priced: { campaigns: { name?: string }[] } };
    expect(kept.priced.campaigns.map((c) => c.name)).toEqual(['Ten off 1001']);
    for (const c of kept.priced.campaigns) delete c.name;
    await t.database.db
      .updateTable('checkout_orders')
      .set({ priced: JSON.stringify(kept) as never })
      .where('id', '=', row.id)
      .execute();
    expect(namedRows(await page(path))).toEqual([['Discount “Coffee week” (in the prices above)', '−€0.35']]);
    const back = await t.admin('PUT', `/merchants/${u}/campaigns/${campaignId}`, tenOff);
    expect(back.statusCode, back.body).toBe(200);
  });

  it("a till's receipt names the campaign behind its positions' discounts, summed over the positions it discounted, as the grant booked it", async () => {
    const who = await consumer();
    const basketId = uniqueId('named');
    // Two cappuccinos at 3.50 (10 % off: 0.70) and a croissant at 2.20.
    await uploadAndGrant(shop.term, basketId, { consumerIdentToken: who.cardId });
    const read = await t.admin(
      'GET',
      `/merchants/${encodeURIComponent(shop.serviceUserName)}/baskets/${shop.term.trackingUnitId}/${basketId}`,
    );
    expect(read.statusCode, read.body).toBe(200);
    const path = new URL((read.json() as { receiptUrl: string }).receiptUrl).pathname;
    const html = await page(path);
    expect(html).toContain('Discount −€0.70');
    expect(namedRows(html)).toEqual([['Discount “Ten off 1001” (in the prices above)', '−€0.70']]);
    expect(html).not.toContain('Rewards');
    const mail = await onlyMailTo(who.email);
    expect(mail?.text).toContain('Discount “Ten off 1001” (in the prices above): −€0.70');
    expect(mail?.text).toContain('Total: €8.50');
  });

  it("an order's campaign on the whole bill, spread over its positions, is named once with the whole of its discount", async () => {
    const other = await shopTakingTwoOffTheBill();
    const who = await profileWithCard(t, other.term, { language: 'en' });
    await topUp(other, who.cardId, 5000);
    // 3.50 + 2 × 2.20 = 7.90, less 2.00 spread over both positions: 5.90.
    const placed = await other.order(
      orderBody(
        other,
        who.cardId,
        [
          ['1001', 1],
          ['1002', 2],
        ],
        { totalGross: 590, balance: { requestCharge: true } },
      ),
    );
    expect(placed.statusCode, placed.body).toBe(200);
    const html = await page(receiptPath(placed.body));
    const shares = [...html.matchAll(/Discount −€(\d+\.\d\d)/g)].map((m) => Math.round(Number(m[1]) * 100));
    expect(shares).toHaveLength(2);
    expect(shares.reduce((s, x) => s + x, 0)).toBe(200);
    expect(namedRows(html)).toEqual([['Discount “Two off” (in the prices above)', '−€2.00']]);
  });

  it("in a browser at a phone's width, in German: the named discount sits under the positions, above the total, and the page fits", async () => {
    const who = await profileWithCard(t, shop.term, { language: 'de-DE' });
    await topUp(shop, who.cardId, 5000);
    const placed = await shop.order(
      orderBody(shop, who.cardId, [['1001', 2]], { totalGross: 630, balance: { requestCharge: true } }),
    );
    expect(placed.statusCode, placed.body).toBe(200);
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${baseUrl}${receiptPath(placed.body)}`);
    const row = page.locator('tr.included');
    await expect(row.textContent()).resolves.toMatch(
      /Rabatt „Ten off 1001“ \(in den Preisen oben\)\s+−0,70\u00a0€/,
    );
    const [rowTop, totalTop] = await Promise.all([
      row.evaluate((e) => e.getBoundingClientRect().top),
      page.locator('tr.total').evaluate((e) => e.getBoundingClientRect().top),
    ]);
    expect(rowTop).toBeLessThan(totalTop);
    await fitsWidth(page);
    await page.screenshot({
      path: join(
        screenshotDir('docs', '.test-cache'),
        kind === 'pglite' ? 'receipt-discounts.png' : `receipt-discounts-${kind}.png`,
      ),
      fullPage: true,
    });
  });

  it("a till's reward on the whole bill is taken off the VAT table's rates in proportion to what each holds, so that the table adds up to what was paid", async () => {
    const other = await shopTakingTwoOffTheBill();
    const receiptOf = async (body: object, lang = 'en') => {
      const basketId = uniqueId('vat');
      await uploadAndGrant(other.term, basketId, {}, body);
      return tillReceiptPage(other, basketId, lang);
    };

    // 2 × 3.50 at 19 % and 2.20 at 7 %, 2.00 off the bill: 7.00 and 2.20 give 1.52 and 0.48 of it.
    const rated = await receiptOf(receiptBasket(false));
    expect(rated).toMatch(/<td colspan="2">Total<\/td>\s*<td class="num">€7\.20<\/td>/);
    expect(vatRows(rated)).toEqual([
      ['7\u00a0%', '€1.61', '€0.11', '€1.72'],
      ['19\u00a0%', '€4.61', '€0.87', '€5.48'],
    ]);
    expect(rated).not.toContain('The till sent no VAT rate for some positions');
    // A position without a rate takes its share of the 2.00 too (0.20 of 1.00): the table holds the
    // rated positions' part, and says that it leaves some out.
    const plain = receiptBasket(false);
    const withTip = {
      ...plain,
      Positions: [
        ...plain.Positions,
        { PositionId: 3, ProductId: '9001', ProductName: 'Tip', Unit: 0, Amount: 1, CurrentGrossPrice: 1 },
      ],
    };
    const partly = await receiptOf(withTip);
    expect(partly).toMatch(/<td colspan="2">Total<\/td>\s*<td class="num">€8\.20<\/td>/);
    expect(vatRows(partly)).toEqual([
      ['7\u00a0%', '€1.65', '€0.12', '€1.77'],
      ['19\u00a0%', '€4.73', '€0.90', '€5.63'],
    ]);
    expect(partly).toContain('The till sent no VAT rate for some positions');
    // A rate with decimals in the reader's language: 10.00 at 7.7 %, 2.00 off: 8.00.
    const cheese = {
      ...plain,
      Positions: [
        {
          PositionId: 1,
          ProductId: '5001',
          ProductName: 'Käse',
          Unit: 0,
          Amount: 1,
          CurrentGrossPrice: 10,
          VatInPercent: 7.7,
        },
      ],
    };
    expect(vatRows(await receiptOf(cheese))).toEqual([['7.7\u00a0%', '€7.43', '€0.57', '€8.00']]);
    const german = await receiptOf(cheese, 'de');
    expect(german).toMatch(/<td>7,7\u00a0%<\/td>/);
  });

  it('a return from a basket with a reward on the whole bill shows on the receipt what the till refunded: the line gross taken back less the rewards falling on it (RefundedRewardValue)', async () => {
    const other = await shopTakingTwoOffTheBill();
    const basketId = uniqueId('back');
    await uploadAndGrant(other.term, basketId, {}, receiptBasket(false));
    // One of the two cappuccinos (3.50): half of the 1.52 of the 2.00 that fell on their position.
    const returned = await other.term.pos('POST', `/baskets/${basketId}/return`, {
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 1 }] },
      sign: `${basketId}R1`,
    });
    expect(returned.statusCode, returned.body).toBe(200);
    expect(returned.json()).toMatchObject({ RefundedRewardValue: 0.76 });
    const html = await tillReceiptPage(other, basketId);
    const returns = /<h2 id="returns">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    expect(returns.replace(/\s+/g, ' ')).toMatch(
      /Returned: 1 × Cappuccino <\/td> <td class="num">−€2\.74<\/td>/,
    );
  });
});
