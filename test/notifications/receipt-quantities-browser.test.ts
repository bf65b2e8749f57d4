import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findReceiptOf, posBasketSourceRef } from '../../src/receipts/receipt.store.js';
import { fitsWidth, openChromium, serve, type TestBrowser } from '../support/browser.js';
import {
  type TestApp,
  type Terminal,
  databases,
  merchantIdOf,
  setupTerminal,
  startApp,
} from '../support/harness.js';
import { uniqueId } from './support.js';

/**
 * A receipt's quantities in the reader's language (docs/decisions.md, "Receipts a shop can hand
 * out"): a weighed article's kilograms with the language's decimal mark, on the page, in what a
 * return took back, and at a phone's width a return's day on one line.
 */
describe.each(databases)('quantities on the receipt, in the reader language, on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let browser: TestBrowser;
  let baseUrl: string;
  let receiptPath = '';

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    baseUrl = await serve(t);
    browser = await openChromium();
    const basketId = uniqueId('kg');
    const up = await term.pos('POST', `/baskets/${basketId}`, {
      body: {
        Timestamp: new Date(t.clock.nowMs()).toISOString(),
        HasDiscounts: false,
        BillNumber: basketId,
        Positions: [
          {
            PositionId: 1,
            ProductId: '1001',
            ProductName: 'Cappuccino',
            Unit: 0,
            Amount: 3,
            CurrentGrossPrice: 3.2,
          },
          {
            PositionId: 2,
            ProductId: '5001',
            ProductName: 'Bergkäse',
            Unit: 1,
            Amount: 0.245,
            CurrentGrossPrice: 29.9,
          },
        ],
      },
    });
    expect(up.statusCode, up.body).toBe(200);
    const g = await term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(g.statusCode, g.body).toBe(200);
    t.clock.advance(86_400_000);
    const r = await term.pos('POST', `/baskets/${basketId}/return`, {
      body: {
        ReturnId: 'R1',
        Positions: [
          { PositionId: 1, Amount: 1 },
          { PositionId: 2, Amount: 0.1 },
        ],
      },
      sign: `${basketId}R1`,
    });
    expect(r.statusCode, r.body).toBe(200);
    const receipt = await findReceiptOf(
      t.database.db,
      await merchantIdOf(t, term),
      'pos_basket',
      posBasketSourceRef(term.trackingUnitId, basketId),
    );
    receiptPath = `/receipts/${receipt?.id ?? 'missing'}`;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('"0,245 kg" in German and "0.245 kg" in English; what went back as "1 × Cappuccino, 0,1 kg Bergkäse"', async () => {
    const text = async (lang: string) => {
      const res = await t.app.inject({ method: 'GET', url: `${receiptPath}?lang=${lang}` });
      expect(res.statusCode).toBe(200);
      return res.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    };
    const de = await text('de');
    expect(de).toContain('0,245 kg');
    expect(de).not.toContain('0.245');
    expect(de).toContain('Zurückgegeben: 1 × Cappuccino, 0,1 kg Bergkäse');
    const en = await text('en');
    expect(en).toContain('0.245 kg');
    expect(en).toContain('Returned: 1 × Cappuccino, 0.1 kg Bergkäse');
  });

  it("at 390 px in German the return's day stays on one line and the page fits the screen", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await page.goto(`${baseUrl}${receiptPath}?lang=de`);
    await fitsWidth(page);
    const lines = await page
      .locator('td.date')
      .first()
      .evaluate((el) => {
        const range = (
          el.ownerDocument as unknown as {
            createRange(): { selectNodeContents(n: unknown): void; getClientRects(): { length: number } };
          }
        ).createRange();
        range.selectNodeContents(el);
        return range.getClientRects().length;
      });
    expect(lines).toBe(1);
  });
});
