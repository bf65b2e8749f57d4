import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthStartUtcMs } from '../../src/shared/time.js';
import { type CheckoutClient, setupCheckout } from '../checkout/checkout-support.js';
import { listFits, openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { type TestApp, startApp } from '../support/harness.js';
import { signIn } from './portal-support.js';

/** A customer's status tiers in the portal's customer view (docs/decisions.md, "Status tiers"). */

const OWNER = { email: 'owner@tiers.test', password: 'a-long-enough-password' };
const SHOTS = screenshotDir('docs/portal', '.test-cache/screenshots');

describe('status tiers in the customer view, in a browser', () => {
  let t: TestApp;
  let c: CheckoutClient;
  let browser: TestBrowser;
  let baseUrl: string;
  let profile: { id: number; card: string };

  beforeAll(async () => {
    t = await startApp('pglite');
    c = await setupCheckout(t);
    baseUrl = await serve(t);
    browser = await openChromium();
    const admin = (path: string, body: object) =>
      t.admin('POST', `/merchants/${encodeURIComponent(c.serviceUserName)}${path}`, body);
    expect((await admin('/portalUsers', OWNER)).statusCode).toBe(201);
    for (const scheme of [
      {
        name: 'Coffee card',
        earn: [{ per: 'amount', amount: 1, points: 1 }],
        tiers: [
          { name: 'Silver', threshold: 20, multiplier: 1.5 },
          { name: 'Gold', threshold: 100, multiplier: 2 },
        ],
        tierBasis: { measure: 'points', period: { rollingDays: 90 } },
      },
      {
        name: 'Breakfast club',
        earn: [{ per: 'unit', products: [], points: 1 }],
        tiers: [{ name: 'Regular', threshold: 250, multiplier: 1.25 }],
        tierBasis: { measure: 'spend', period: { calendar: 'month' } },
      },
    ]) {
      const res = await admin('/loyaltySchemes', scheme);
      expect(res.statusCode, res.body).toBe(201);
    }
    profile = await c.profile({ balance: 2_000 });
    // The four purchases are 10 minutes apart and the breakfast club counts spend per calendar month
    // of the merchant (Europe/Berlin): begun in a month's last 50 minutes they would fall into two
    // months, so the clock then starts an hour later, in the next month.
    const monthOf = (ms: number): number => monthStartUtcMs('Europe/Berlin', ms);
    if (monthOf(t.clock.ms) !== monthOf(t.clock.ms + 50 * 60_000)) t.clock.ms += 60 * 60_000;
    for (let i = 1; i <= 4; i += 1) {
      t.clock.ms += 600_000;
      const id = `TB-${i}`;
      const up = await c.term.pos('POST', `/baskets/${id}`, {
        body: {
          Timestamp: new Date(t.clock.nowMs()).toISOString().replace('Z', '+00:00'),
          HasDiscounts: false,
          CurrencyISO: 'EUR',
          Positions: [
            {
              PositionId: 1,
              ProductId: '1001',
              ProductName: 'Cappuccino',
              Unit: 0,
              Amount: 2,
              CurrentGrossPrice: 3.5,
            },
          ],
        },
        query: { consumerIdentToken: profile.card },
      });
      expect(up.statusCode, up.body).toBe(200);
      expect((await c.term.pos('POST', `/baskets/${id}/grant`, { sign: id })).statusCode).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const width of [1280, 390]) {
    it(`an owner sees the customer's tier, the period's figure and what is missing to the next (${width} px)`, async () => {
      const context = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 900 } });
      const page = await context.newPage();
      await signIn(page, baseUrl, OWNER);
      await page.goto(`${baseUrl}/portal/profiles/${profile.id}`);
      const rows = page.locator('#profile-tiers tbody tr');
      await expect.poll(() => rows.count()).toBe(2);
      // 7, 7 and 7 points, Silver from 20 on: the fourth earns 10 (1.5), 31 in 90 days, 69 more for Gold.
      const coffee = (await rows.nth(0).innerText()).replace(/\s+/g, ' ');
      expect(coffee).toContain('Silver');
      expect(coffee).toContain('31');
      expect(coffee).toContain('69 more for Gold');
      const breakfast = (await rows.nth(1).innerText()).replace(/\s+/g, ' ');
      expect(breakfast).toContain('none yet');
      expect(breakfast).toContain('€28.00');
      // On a phone each tier is a card: nothing of it behind a sideways scroll.
      await listFits(page, '#profile-tiers');
      await page.screenshot({ path: `${SHOTS}/customer-tiers-${width}.png`, fullPage: true });
      await context.close();
    });
  }
});
