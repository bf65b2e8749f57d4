import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDayOf } from '../../src/reports/dashboard-period.store.js';
import { csvStream } from '../../src/portal/csv-export.js';
import { orderCsv } from '../../src/portal/order-csv.js';
import { type CheckoutClient, orderBody, placeOrder, setupCheckout } from '../checkout/checkout-support.js';
import { csvAnswer } from '../support/csv.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type PortalSession, newPortalSession, portalCall, portalPage } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const HEADER =
  'day,placedAt,orderId,basketId,shopId,shop,profileId,customer,total,charged,refunded,state,currency,receipt';
/** A shop's name as someone typed it: a comma, quotes, and a start a spreadsheet would read as a formula. */
const KIOSK = '=Kiosk, Eingang "Nord"';

interface Listed {
  orderId: string;
  basketId: string;
  clientId: number;
  createdAt: string;
  totalGrossMinor: number;
  chargedMinor: number;
  refundedMinor: number;
  state: string;
  receiptUrl: string | null;
}

const minor = (major: string) => Math.round(Number(major) * 100);

/**
 * docs/decisions.md, "Finding checkout orders": every order the search finds, as CSV for the
 * merchant's bookkeeping, with the list's filters, its figures the list's and its sums the totals'.
 */
describe.each(databases)('the checkout orders found, as CSV (%s)', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let owner: PortalSession;
  let kiosk = { id: 0, accessToken: '', securitySecret: '' };

  beforeAll(async () => {
    t = await startApp(kind);
    c = await setupCheckout(t);
    owner = await newPortalSession(t, c.serviceUserName, {
      email: `owner-${kind}@csv.test`,
      password: PASSWORD,
    });
    const k = await t.admin('POST', `/merchants/${encodeURIComponent(c.serviceUserName)}/checkoutClients`, {
      name: KIOSK,
    });
    expect(k.statusCode, k.body).toBe(201);
    kiosk = k.json() as typeof kiosk;
    const ada = await c.profile({ balance: 10_000 });
    const placed: string[] = [];
    // Five orders over two evenings, an hour apart: 9.20 charged, 12.99 charged, 6.60 not
    // charged, 9.20 and 12.99 charged again; the first refunded in part (3.00), the second whole.
    const orders: [boolean, [string, number][], number, boolean][] = [
      [
        true,
        [
          ['1001', 2],
          ['1002', 1],
        ],
        920,
        true,
      ],
      [false, [['1003', 1]], 1_299, true],
      [true, [['1002', 3]], 660, false],
      [
        false,
        [
          ['1001', 2],
          ['1002', 1],
        ],
        920,
        true,
      ],
      [true, [['1003', 1]], 1_299, true],
    ];
    for (const [webShop, positions, total, charge] of orders) {
      t.clock.advance(3_600_000);
      placed.push(await placeOrder(t, c, webShop ? null : kiosk, ada.card, positions, total, charge));
    }
    expect((await c.call('POST', `/api/v1/orders/${placed[0]}/refund`, { amount: 300 })).statusCode).toBe(
      200,
    );
    expect((await c.call('POST', `/api/v1/orders/${placed[1]}/refund`)).statusCode).toBe(200);
    // Another merchant's order is in no CSV of this one.
    const other = await setupCheckout(t);
    const theirs = await other.profile({ balance: 2_000 });
    expect(
      (await other.order(orderBody(other, theirs.card, [['1002', 1]], { totalGross: 220 }))).statusCode,
    ).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const csvOf = async (query: string) =>
    csvAnswer(await portalCall(t, owner, 'GET', `/orders.csv${query}`), 'orders.csv', HEADER);
  const listed = async (query: string) =>
    ((await portalCall(t, owner, 'GET', `/orders?limit=100${query}`)).json() as { data: Listed[] }).data;
  const totals = async (query: string) =>
    (await portalCall(t, owner, 'GET', `/orders/totals${query}`)).json() as {
      orders: number;
      totalGrossMinor: number;
      chargedMinor: number;
      refundedMinor: number;
    };

  it('holds every order the list finds, newest first, with the list’s figures, and adds up to its totals', async () => {
    const { lines } = await csvOf('');
    const list = await listed('');
    expect(lines.map((l) => l[2])).toEqual(list.map((o) => o.orderId));
    for (const [i, o] of list.entries()) {
      expect(lines[i]).toEqual([
        localDayOf(Date.parse(o.createdAt), 'Europe/Berlin').day,
        o.createdAt,
        o.orderId,
        o.basketId,
        String(o.clientId),
        o.clientId === kiosk.id ? `'${KIOSK}` : 'Web shop',
        expect.stringMatching(/^[0-9]+$/),
        'Ada Lovelace',
        (o.totalGrossMinor / 100).toFixed(2),
        (o.chargedMinor / 100).toFixed(2),
        (o.refundedMinor / 100).toFixed(2),
        o.state,
        'EUR',
        // The receipt as a whole link a spreadsheet opens.
        o.receiptUrl === null ? '' : `${t.app.ctx.config.publicBaseUrl}${o.receiptUrl}`,
      ]);
    }
    const sum = (column: number) => lines.reduce((a, l) => a + minor(l[column] ?? ''), 0);
    // 9.20 + 12.99 + 6.60 + 9.20 + 12.99 ordered; all but the 6.60 charged; 3.00 + 12.99 given back.
    expect({ orders: lines.length, total: sum(8), charged: sum(9), refunded: sum(10) }).toEqual({
      orders: 5,
      total: 5_098,
      charged: 4_438,
      refunded: 1_599,
    });
    const all = await totals('');
    expect([all.orders, all.totalGrossMinor, all.chargedMinor, all.refundedMinor]).toEqual([
      5, 5_098, 4_438, 1_599,
    ]);
  });

  it('the typed name of a shop is quoted where it holds a comma or quotes and never read as a formula', async () => {
    const { body } = await csvOf(`?clientId=${kiosk.id}`);
    expect(body).toContain(`,${kiosk.id},"'=Kiosk, Eingang ""Nord""",`);
  });

  it('takes the list’s filters: a shop, a state, a period', async () => {
    const refunded = await csvOf(`?clientId=${kiosk.id}&state=refunded`);
    expect(refunded.lines.map((l) => [l[4], l[11], l[10]])).toEqual([
      [String(kiosk.id), 'refunded', '12.99'],
    ]);
    const list = await listed('');
    const newest = list[0];
    const second = list[1];
    if (!newest || !second) throw new Error('two orders expected');
    // The last two orders only: from the second newest's time on.
    const period = await csvOf(`?from=${encodeURIComponent(second.createdAt)}`);
    expect(period.lines.map((l) => l[2])).toEqual([newest.orderId, second.orderId]);
  });

  it('a filter it cannot take is refused as the list refuses it, with nothing written', async () => {
    const res = await portalCall(t, owner, 'GET', '/orders.csv?state=lost');
    expect(res.statusCode).toBe(400);
    expect((res.json() as { error: { code: string } }).error.code).toBe('invalid_request');
    const anonymous = await t.app.inject({ method: 'GET', url: '/portal/api/v1/orders.csv' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('a failure to read the first batch is thrown before anything is sent; a later one ends the stream in error', async () => {
    async function* failingFirst(): AsyncGenerator<string> {
      yield* [];
      throw new Error('the database did not answer');
    }
    await expect(csvStream(failingFirst())).rejects.toThrow('the database did not answer');
    async function* failingLater(): AsyncGenerator<string> {
      yield 'day\r\n';
      throw new Error('the database did not answer');
    }
    const stream = await csvStream(failingLater());
    const read = async () => {
      let text = '';
      for await (const part of stream) text += String(part);
      return text;
    };
    await expect(read()).rejects.toThrow('the database did not answer');
  });

  it('read a batch at a time, the CSV is the same as read at once', async () => {
    const { body } = await csvOf('');
    const merchant = await t.database.db
      .selectFrom('merchants')
      .select('id')
      .where('service_user_name', '=', c.serviceUserName)
      .executeTakeFirstOrThrow();
    const filter = {
      merchantId: merchant.id,
      fromMs: null,
      toMs: null,
      number: null,
      clientId: null,
      profileId: null,
      state: null,
      receiptMail: null,
    };
    for (const batch of [1, 2, 4, 5]) {
      let text = '';
      for await (const part of orderCsv(
        t.database.db,
        filter,
        'Europe/Berlin',
        t.app.ctx.config.publicBaseUrl,
        batch,
      ))
        text += part;
      expect(text, `batches of ${batch}`).toBe(body);
    }
  });

  it('the order page links the CSV of what it found, with its filters and its days as the merchant’s', async () => {
    const all = await portalPage(t, owner, '/portal/orders?state=refunded');
    expect(all.body).toContain('href="/portal/api/v1/orders.csv?state=refunded"');
    expect(all.body).toContain('Every order found as CSV');
    // Nothing found, nothing to download.
    const none = await portalPage(t, owner, '/portal/orders?number=no-such-order');
    expect(none.body).not.toContain('orders.csv');
    const day = new Date(t.clock.nowMs()).toLocaleDateString('sv-SE', { timeZone: 'Europe/Berlin' });
    const dated = await portalPage(t, owner, `/portal/orders?from=${day}&to=${day}`);
    const href = /href="(\/portal\/api\/v1\/orders\.csv\?[^"]*)"/
      .exec(dated.body)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(href).toBeDefined();
    const from = new URL(`http://x${href}`).searchParams.get('from') ?? '';
    // Midnight of that day in Berlin, as the list's own search reads the day.
    expect(localDayOf(Date.parse(from), 'Europe/Berlin')).toEqual({ day, msOfDay: 0 });
  });
});
