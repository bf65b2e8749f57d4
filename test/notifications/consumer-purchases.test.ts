import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type PurchaseHistory, purchaseHistory, signedIn } from './purchase-history.js';

/** The page's text: tags dropped, whitespace folded. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

describe.each(databases)('every purchase where the consumer looks, on %s', (kind) => {
  let t: TestApp;
  let h: PurchaseHistory;
  let me: string;

  beforeAll(async () => {
    t = await startApp(kind);
    h = await purchaseHistory(t);
    const page = await t.app.inject({
      method: 'GET',
      url: '/me',
      headers: { cookie: await signedIn(t, h.email) },
    });
    expect(page.statusCode).toBe(200);
    me = page.body;
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The merchant's time zone: the calendar the pages date returns, refunds and movements on. */
  const zoneOf = async () =>
    (
      await t.database.db
        .selectFrom('profiles as p')
        .innerJoin('merchants as m', 'm.id', 'p.merchant_id')
        .select('m.time_zone')
        .where('p.id', '=', h.profileId)
        .executeTakeFirstOrThrow()
    ).time_zone;

  const receiptOf = async (kind: string, sourceRef: string) =>
    (
      await t.database.db
        .selectFrom('receipts')
        .select('id')
        .where('kind', '=', kind as 'pos_basket')
        .where('source_ref', '=', sourceRef)
        .executeTakeFirstOrThrow()
    ).id;

  it('"/me lists POS baskets and checkout orders together, newest first", each with outlet or shop, total, points and the receipt', async () => {
    const kinds = [...me.matchAll(/data-kind="([a-z_]+)"/g)].map((m) => m[1]);
    expect(kinds).toEqual([
      'checkout_order',
      'checkout_order',
      'pos_basket',
      'pos_basket',
      'pos_basket',
      'pos_basket',
      'pos_basket',
      'pos_basket',
    ]);
    const rows = [...me.matchAll(/<tr data-kind="[a-z_]+">([\s\S]*?)<\/tr>/g)].map((m) => textOf(m[1] ?? ''));
    // Orders: the shop's name, the total the database holds, the receipt.
    const orders = await t.database.db
      .selectFrom('checkout_orders')
      .select(['id', 'total_gross_minor', 'receipt_id'])
      .where('profile_id', '=', h.profileId)
      .orderBy('created_at', 'desc')
      .execute();
    expect(orders.map((o) => Number(o.total_gross_minor))).toEqual([1299, 790]);
    expect(rows[0]).toContain('Order · Web shop');
    expect(rows[0]).toContain('€12.99');
    expect(rows[1]).toContain('€7.90');
    for (const o of orders) expect(me).toContain(`href="/receipts/${o.receipt_id ?? 'none'}"`);
    // Baskets: the outlet, 2 × 3.50 + 2.20 = 9.20, the points the grant booked, the receipt.
    const baskets = await t.database.db
      .selectFrom('baskets')
      .select(['basket_id', 'tracking_unit_id', 'grant_result'])
      .where('profile_id', '=', h.profileId)
      .orderBy('timestamp_utc', 'desc')
      .execute();
    expect(baskets.map((b) => b.basket_id)).toEqual([...h.baskets].reverse());
    for (const [i, b] of baskets.entries()) {
      const row = rows[i + 2] ?? '';
      expect(row).toContain(b.tracking_unit_id === h.main.trackingUnitId ? 'Main street' : 'Station square');
      expect(row).toContain('€9.20');
      const earned = b.grant_result?.booking.loyalty[0]?.earned;
      expect(earned).toBe(9);
      expect(row).toContain(`+${earned} Coffee points`);
      expect(me).toContain(
        `href="/receipts/${await receiptOf('pos_basket', `${b.tracking_unit_id}/${b.basket_id}`)}"`,
      );
    }
  });

  it('"Returns and refunds show on the purchase": the partial return with its amount, date and points; the refund with what went back to the balance', async () => {
    const rows = [...me.matchAll(/<tr data-kind="[a-z_]+">([\s\S]*?)<\/tr>/g)].map((m) => textOf(m[1] ?? ''));
    const ret = await t.database.db
      .selectFrom('basket_returns')
      .select(['response', 'created_at'])
      .where('basket_id', '=', h.returnedBasket)
      .executeTakeFirstOrThrow();
    const taken = ret.response.booking.loyalty[0]?.taken ?? 0;
    expect(taken).toBeGreaterThan(0);
    const returnedRow = rows[2 + h.baskets.length - 1 - h.baskets.indexOf(h.returnedBasket)] ?? '';
    const day = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: await zoneOf() });
    expect(returnedRow).toContain(
      `Returned on ${day.format(new Date(ret.created_at))}: 1 × Cappuccino −€3.50, −${taken} Coffee points`,
    );
    const order = await t.database.db
      .selectFrom('checkout_orders')
      .select(['status', 'refunded_at', 'charged_minor'])
      .where('id', '=', h.refundedOrder)
      .executeTakeFirstOrThrow();
    expect(order.status).toBe('refunded');
    expect(Number(order.charged_minor)).toBe(1299);
    expect(rows[0]).toContain(
      `Refunded on ${day.format(new Date(order.refunded_at ?? 0))}: €12.99 back to the balance`,
    );
    expect(rows[1]).not.toContain('Refunded');
  });

  it('"each balance movement names what it was for and links its receipt": top-up, till load, till payment, order with what was bought, refund; each with the balance after it', async () => {
    const section = me.slice(me.indexOf('class="movements"'), me.indexOf('id="purchases"'));
    const lines = [...section.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => ({
      text: textOf(m[1] ?? ''),
      receipt: /href="\/receipts\/([A-Za-z0-9_-]+)"/.exec(m[1] ?? '')?.[1] ?? null,
    }));
    const orderReceipt = await receiptOf('checkout_order', h.order);
    const refundedReceipt = await receiptOf('checkout_order', h.refundedOrder);
    const paidReceipt = await receiptOf('pos_basket', `${h.station.trackingUnitId}/${h.paidBasket}`);
    expect(lines.map((l) => [l.text.trim().replace(/^\S+ \S+ \S+ /, ''), l.receipt])).toEqual([
      [
        'Refund of an order · Web shop 1 × Article 1003 €12.99 Balance after: €37.10 Receipt',
        refundedReceipt,
      ],
      ['Order · Web shop 1 × Article 1003 -€12.99 Balance after: €24.11 Receipt', refundedReceipt],
      [
        'Order · Web shop 1 × Article 1001, 2 × Article 1002 -€7.90 Balance after: €37.10 Receipt',
        orderReceipt,
      ],
      ['Paid at the till · Station square -€5.00 Balance after: €45.00 Receipt', paidReceipt],
      ['Loaded at the till · Main street €20.00 Balance after: €50.00', null],
      ['Top-up €30.00 Balance after: €30.00', null],
    ]);
    // The balance shown is the ledger's: 30.00 + 20.00 − 5.00 − 7.90 − 12.99 + 12.99.
    const account = await t.database.db
      .selectFrom('profiles as p')
      .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
      .select('a.balance_minor')
      .where('p.id', '=', h.profileId)
      .executeTakeFirstOrThrow();
    expect(Number(account.balance_minor)).toBe(3710);
    expect(textOf(me)).toContain('Balance €37.10');
  });

  it('"a refunded checkout order\'s receipt" says it was refunded, when, and what went back to the balance', async () => {
    const page = await t.app.inject({
      method: 'GET',
      url: `/receipts/${await receiptOf('checkout_order', h.refundedOrder)}`,
    });
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    const order = await t.database.db
      .selectFrom('checkout_orders')
      .select('refunded_at')
      .where('id', '=', h.refundedOrder)
      .executeTakeFirstOrThrow();
    const day = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: await zoneOf() }).format(
      new Date(order.refunded_at ?? 0),
    );
    expect(text).toContain(`Refunded on ${day}: €12.99 went back to the balance.`);
    expect(text).toContain('Paid from balance €12.99');
    expect(text).toContain(`Returns and refunds ${day} Refund €12.99 back to the balance −€12.99`);
    // The order not refunded says nothing of a refund.
    const paid = await t.app.inject({
      method: 'GET',
      url: `/receipts/${await receiptOf('checkout_order', h.order)}`,
    });
    expect(textOf(paid.body)).not.toContain('Refund');
  });

  it("a movement is dated on the merchant's calendar: a top-up at half past midnight in Berlin is that day's", async () => {
    expect(await zoneOf()).toBe('Europe/Berlin');
    // 23:30 UTC, a day after everything else: 00:30 (01:30 in summer) of the next day in Berlin.
    const utcDay = new Date(t.clock.nowMs() + 86_400_000).toISOString().slice(0, 10);
    t.clock.ms = Date.parse(`${utcDay}T23:30:00Z`);
    const topUp = await h.shop.call('POST', `/api/v1/profiles/${h.card}/topUps`, {
      amount: 100,
      currency: 'EUR',
    });
    expect(topUp.statusCode, topUp.body).toBe(201);
    const page = await t.app.inject({
      method: 'GET',
      url: '/me',
      headers: { cookie: await signedIn(t, h.email) },
    });
    const section = page.body.slice(
      page.body.indexOf('class="movements"'),
      page.body.indexOf('id="purchases"'),
    );
    const first = textOf(/<tr>([\s\S]*?)<\/tr>/.exec(section)?.[1] ?? '').trim();
    const format = (timeZone: string) =>
      new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone }).format(t.clock.nowMs());
    expect(format('Europe/Berlin')).not.toBe(format('UTC'));
    expect(first).toBe(`${format('Europe/Berlin')} Top-up €1.00 Balance after: €38.10`);
  });
});
