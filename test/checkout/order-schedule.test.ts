import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, orderBody, setupCheckout } from './checkout-support.js';

/**
 * An order's orderTimestamp is UTC (checkout interface v1), while a campaign's schedule is the
 * shop's wall clock: the order's time is read in the merchant's time zone (docs/decisions.md,
 * "Pricing and VAT").
 */
describe.each(databases)("a campaign's schedule on online orders on %s", (kind) => {
  let t: TestApp;
  let m: CheckoutClient;

  beforeAll(async () => {
    t = await startApp(kind);
    m = await setupCheckout(t, { timeZone: 'Europe/Berlin' });
  });
  afterAll(() => t?.close());

  it('a happy hour from 15:00 to 17:00 in Berlin applies to an order at 14:30Z (15:30 there) and not at 16:30Z (17:30 there)', async () => {
    const u = encodeURIComponent(m.serviceUserName);
    const res = await t.admin('POST', `/merchants/${u}/campaigns`, {
      name: 'Happy hour',
      type: 'product',
      discount: { amount: 2 },
      products: [{ plu: '1003' }],
      schedule: [{ days: [1], from: '15:00', to: '17:00' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const p = await m.profile({ balance: 10_000 });
    // 2026-03-02 is a Monday; Berlin is UTC+1 in March.
    const at = async (orderTimestamp: string, totalGross: number) =>
      m.order(
        orderBody(m, p.card, [['1003', 1]], {
          orderTimestamp,
          totalGross,
          balance: { requestCharge: true },
        }),
      );
    const inside = await at('2026-03-02T14:30:00Z', 1099);
    expect(inside.statusCode, inside.body).toBe(200);
    expect(inside.json().orderTimestamp).toBe('2026-03-02T14:30:00.000Z');
    const after = await at('2026-03-02T16:30:00Z', 1299);
    expect(after.statusCode, after.body).toBe(200);
    // The same instant written in another offset is the same time in the shop.
    const offset = await at('2026-03-02T09:30:00-05:00', 1099);
    expect(offset.statusCode, offset.body).toBe(200);
  });
});
