import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, orderBody, setupCheckout } from './checkout-support.js';

/**
 * An online order given a campaign with a budget locks the customer's profile before the budget,
 * in the order a till's grant of the same customer locks them (docs/decisions.md, "A campaign with
 * a budget and online orders"), so the two wait for each other rather than deadlock. Only
 * PostgreSQL runs the two at the same time (the embedded database has one connection).
 */
describe.runIf(databases.includes('postgres'))('an order and a grant of one customer on postgres', () => {
  let t: TestApp;
  let m: CheckoutClient;

  beforeAll(async () => {
    t = await startApp('postgres');
    m = await setupCheckout(t);
  });
  afterAll(() => t?.close());

  it('an order waits for a grant that holds the customer and then the budget, and is booked after it within what is left', async () => {
    const u = encodeURIComponent(m.serviceUserName);
    const created = await t.admin('POST', `/merchants/${u}/campaigns`, {
      name: 'Two off, five redemptions',
      type: 'product',
      discount: { amount: 2 },
      products: [{ plu: '1003' }],
      budget: { redemptions: 5 },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: number }).id;
    const merchantId = Number(
      (
        await sql<{ merchant_id: number }>`SELECT merchant_id FROM campaigns WHERE id = ${id}`.execute(
          t.database.db,
        )
      ).rows[0]?.merchant_id,
    );
    // The usage rows made already: the grant below only locks them.
    await sql`SELECT lock_campaign_budgets(${merchantId}, ARRAY[${id}]::bigint[], now())`.execute(
      t.database.db,
    );
    const p = await m.profile({ balance: 10_000 });

    let answered: Awaited<ReturnType<CheckoutClient['order']>> | null = null;
    await t.database.db.transaction().execute(async (grant) => {
      // A grant of the same customer: the customer first (points_holder), then the budget.
      await sql`SELECT 1 FROM profiles WHERE id = ${p.id} FOR UPDATE`.execute(grant);
      void m
        .order(orderBody(m, p.card, [['1003', 1]], { totalGross: 1099, balance: { requestCharge: true } }))
        .then((res) => {
          answered = res;
        });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(answered).toBeNull();
      await sql`SELECT lock_campaign_budgets(${merchantId}, ARRAY[${id}]::bigint[], now())`.execute(grant);
      await sql`SELECT book_campaign_budgets(${merchantId}, ${m.term.trackingUnitId}, 'lock-order-basket',
        ${JSON.stringify([{ campaignId: id, period: null, discountMinor: 200, redemptions: 1 }])}::json, now())`.execute(
        grant,
      );
    });
    const deadline = Date.now() + 10_000;
    while (answered === null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const order = answered as Awaited<ReturnType<CheckoutClient['order']>> | null;
    expect(order?.statusCode, order?.body).toBe(200);
    expect(order?.json().positions[0].price).toBe(1099);
    const used = await sql<{ redemptions: number }>`
      SELECT redemptions FROM campaign_budget_usage WHERE campaign_id = ${id} AND period = 'total'`.execute(
      t.database.db,
    );
    expect(used.rows[0]?.redemptions).toBe(2);
  });
});
