import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestBrowser, fitsWidth, openChromium, screenshotDir, serve } from '../support/browser.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import {
  type CheckoutClient,
  expectLedgerSound,
  orderBody,
  setupCheckout,
} from '../checkout/checkout-support.js';
import { type PortalSession, newPortalSession, portalCall, signIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const SHOTS = screenshotDir('docs/portal', '.test-cache');

interface Detail {
  orderId: string;
  chargedMinor: number;
  refundedMinor: number;
  refundableMinor: number;
  state: string;
  refunds: { refundId: string; amountMinor: number; by: string | null; reason: string | null }[];
}

/**
 * docs/decisions.md, "Refunding an order from the portal": an owner gives back part or all of what
 * a checkout order charged to the customer's balance, with a reason; the refund is the checkout
 * interface's own (its rules, its ledger posting, its read-back), names who made it, and a request
 * sent twice gives the money back once.
 */
describe.each(databases)('refunding a checkout order from the portal (%s)', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let owner: PortalSession;
  let staff: PortalSession;
  let browser: TestBrowser;
  let baseUrl = '';
  const ownerEmail = `owner-${kind}@order-refund.test`;
  const staffEmail = `staff-${kind}@order-refund.test`;

  beforeAll(async () => {
    t = await startApp(kind);
    c = await setupCheckout(t);
    owner = await newPortalSession(t, c.serviceUserName, {
      email: ownerEmail,
      password: PASSWORD,
      lang: 'de',
    });
    staff = await newPortalSession(t, c.serviceUserName, {
      email: staffEmail,
      password: PASSWORD,
      lang: 'de',
      role: 'staff',
    });
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A charged order of 9.20 (2 x 3.50 + 2.20) from a fresh customer with 50.00; its id and card. */
  const paidOrder = async () => {
    const who = await c.profile({ balance: 5_000 });
    const body = orderBody(
      c,
      who.card,
      [
        ['1001', 2],
        ['1002', 1],
      ],
      { totalGross: 920, balance: { requestCharge: true } },
    );
    const res = await c.order(body);
    expect(res.statusCode, res.body).toBe(200);
    const found = await portalCall(t, owner, 'GET', `/orders?number=${body.basketId as string}`);
    const orderId = (found.json() as { data: { orderId: string }[] }).data[0]?.orderId ?? '';
    return { orderId, basketId: body.basketId as string, card: who.card };
  };
  const refund = (who: PortalSession, orderId: string, body: Record<string, unknown>) =>
    portalCall(t, who, 'POST', `/orders/${orderId}/refunds`, body);
  const balanceOf = async (card: string) =>
    ((await c.call('GET', `/api/v1/profiles/${card}`)).json() as { balance: { totalAmount: number } }).balance
      .totalAmount;

  it('an owner gives back an amount, then the rest; the checkout interface reads back the same refunds', async () => {
    const o = await paidOrder();
    const first = await refund(owner, o.orderId, {
      requestId: randomUUID(),
      amount: '3.50',
      reason: 'Kaffee kalt',
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({
      refundedMinor: 350,
      refundableMinor: 570,
      state: 'partially_refunded',
      refunds: [{ amountMinor: 350, by: ownerEmail, reason: 'Kaffee kalt' }],
    });
    expect(await balanceOf(o.card)).toBe(5_000 - 920 + 350);
    // No amount: all that is left.
    const rest = await refund(owner, o.orderId, { requestId: randomUUID() });
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json()).toMatchObject({ refundedMinor: 920, refundableMinor: 0, state: 'refunded' });
    expect(await balanceOf(o.card)).toBe(5_000);
    // Nothing left to give back: refused, nothing booked.
    const more = await refund(owner, o.orderId, { requestId: randomUUID() });
    expect(more.statusCode, more.body).toBe(422);
    expect(more.json().error).toMatchObject({
      code: 'refund_exceeds_refundable',
      details: { refundableAmount: 0 },
    });
    expect(await balanceOf(o.card)).toBe(5_000);
    const read = (await c.call('GET', `/api/v1/orders/${o.basketId}`)).json() as {
      status: string;
      refundedAmount: number;
      refunds: { id: string; amount: number }[];
    };
    expect([read.status, read.refundedAmount]).toEqual(['refunded', 920]);
    expect(read.refunds.map((r) => [r.id, r.amount])).toEqual(
      (rest.json() as Detail).refunds.map((r) => [r.refundId, r.amountMinor]),
    );
    await expectLedgerSound(t);
  });

  it('a request sent twice, one after the other or at once, gives the money back once', async () => {
    const o = await paidOrder();
    const requestId = randomUUID();
    const ask = { requestId, amount: '1.00' };
    const [a, b] = await Promise.all([refund(owner, o.orderId, ask), refund(owner, o.orderId, ask)]);
    const again = await refund(owner, o.orderId, ask);
    for (const r of [a, b, again]) {
      expect(r.statusCode, r.body).toBe(200);
      expect((r.json() as Detail).refunds).toHaveLength(1);
    }
    expect(await balanceOf(o.card)).toBe(5_000 - 920 + 100);
    // The same requestId for another amount, or another order, is refused and changes nothing.
    const other = await paidOrder();
    for (const [orderId, body] of [
      [o.orderId, { requestId, amount: '2.00' }],
      [o.orderId, { requestId }],
      [other.orderId, { requestId, amount: '1.00' }],
    ] as const) {
      const res = await refund(owner, orderId, body);
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error.code).toBe('refund_request_reused');
    }
    expect(await balanceOf(o.card)).toBe(5_000 - 920 + 100);
    expect(await balanceOf(other.card)).toBe(5_000 - 920);
    await expectLedgerSound(t);
  });

  it('an owner takes back positions: each gives back its share, the last what is left of it', async () => {
    const o = await paidOrder();
    // Position 1: 2 x 3.50 (7.00); position 2: 1 x 2.20.
    const first = await refund(owner, o.orderId, {
      requestId: randomUUID(),
      positions: [{ positionId: 1, quantity: 1 }],
      reason: 'Ein Kaffee kalt',
    });
    expect(first.statusCode, first.body).toBe(200);
    const d = first.json() as Detail & {
      positions: { positionId: number; refundedQuantity: number; refundedMinor: number }[];
      refunds: { positions: { positionId: number; quantity: number; amountMinor: number }[] }[];
    };
    expect(d).toMatchObject({ refundedMinor: 350, refundableMinor: 570, state: 'partially_refunded' });
    expect(d.positions.map((p) => [p.positionId, p.refundedQuantity, p.refundedMinor])).toEqual([
      [1, 1, 350],
      [2, 0, 0],
    ]);
    expect(d.refunds[0]?.positions).toEqual([{ positionId: 1, quantity: 1, amountMinor: 350 }]);
    // The rest of both positions, listed in another order: all that was charged is back.
    const requestId = randomUUID();
    const rest = [
      { positionId: 2, quantity: 1 },
      { positionId: 1, quantity: 1 },
    ];
    const second = await refund(owner, o.orderId, { requestId, positions: rest });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({ refundedMinor: 920, refundableMinor: 0, state: 'refunded' });
    expect(await balanceOf(o.card)).toBe(5_000);
    // Sent again with the positions listed the other way round: the same refund, nothing booked.
    const again = await refund(owner, o.orderId, { requestId, positions: [...rest].reverse() });
    expect(again.statusCode, again.body).toBe(200);
    expect((again.json() as Detail).refunds).toHaveLength(2);
    // The same requestId with other positions, or with an amount: another refund, refused.
    for (const body of [
      { requestId, positions: [{ positionId: 2, quantity: 1 }] },
      { requestId, amount: '5.70' },
    ]) {
      const res = await refund(owner, o.orderId, body);
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error.code).toBe('refund_request_reused');
    }
    expect(await balanceOf(o.card)).toBe(5_000);
    const read = (await c.call('GET', `/api/v1/orders/${o.basketId}`)).json() as {
      refunds: { amount: number; positions: { positionId: number; quantity: number }[] }[];
    };
    expect(read.refunds.map((r) => [r.amount, r.positions.length])).toEqual([
      [350, 1],
      [570, 2],
    ]);
    await expectLedgerSound(t);
  });

  it('a quote says what the refund then gives back and books nothing; it refuses what the refund refuses', async () => {
    const o = await paidOrder();
    const quote = (who: PortalSession, orderId: string, body: Record<string, unknown>) =>
      portalCall(t, who, 'POST', `/orders/${orderId}/refunds/quote`, body);
    const asks: [Record<string, unknown>, number, boolean][] = [
      [{ amount: '3.50' }, 350, false],
      [{ positions: [{ positionId: 1, quantity: 1 }] }, 350, false],
      [{ positions: [{ positionId: 2, quantity: 1 }] }, 220, false],
      [{}, 920, true],
    ];
    for (const [body, amountMinor, whole] of asks) {
      const res = await quote(owner, o.orderId, body);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ amountMinor, whole, currency: 'EUR' });
    }
    const both = { amount: '1.00', positions: [{ positionId: 1, quantity: 1 }] };
    const refused: [PortalSession, string, Record<string, unknown>, number, string][] = [
      [owner, o.orderId, { amount: '9.21' }, 422, 'refund_exceeds_refundable'],
      [owner, o.orderId, both, 422, 'refund_amount_and_positions'],
      [owner, o.orderId, { positions: [{ positionId: 1, quantity: 3 }] }, 422, 'refund_quantity_exceeds'],
      [owner, o.orderId, { positions: [{ positionId: 7, quantity: 1 }] }, 422, 'refund_position_unknown'],
      [owner, o.orderId, { amount: '1.005' }, 400, 'invalid_request'],
      [staff, o.orderId, { amount: '1.00' }, 403, 'role_forbidden'],
      [owner, 'ord_unknown', {}, 404, 'not_found'],
    ];
    for (const [who, orderId, body, status, code] of refused) {
      const res = await quote(who, orderId, body);
      expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).toBe(status);
      expect(res.json().error.code).toBe(code);
    }
    // Nothing was booked by any of them.
    const d = (await portalCall(t, owner, 'GET', `/orders/${o.orderId}`)).json() as Detail;
    expect([d.refundedMinor, d.refunds.length]).toEqual([0, 0]);
    expect(await balanceOf(o.card)).toBe(5_000 - 920);

    // Weighed: 0.375 kg at 3.50 came to 1.31; taken back an eighth at a time, each quote is what the
    // refund then gives (44, 43, 44: the last what is left of the position).
    const who = await c.profile({ balance: 5_000 });
    const body = orderBody(c, who.card, [['1001', 0.375]], {
      totalGross: 131,
      balance: { requestCharge: true },
    });
    const placed = await c.order(body);
    expect(placed.statusCode, placed.body).toBe(200);
    const found = await portalCall(t, owner, 'GET', `/orders?number=${body.basketId as string}`);
    const weighed = (found.json() as { data: { orderId: string }[] }).data[0]?.orderId ?? '';
    const given: number[] = [];
    for (let i = 0; i < 3; i++) {
      const ask = { positions: [{ positionId: 1, quantity: 0.125 }] };
      const said = (await quote(owner, weighed, ask)).json() as { amountMinor: number; whole: boolean };
      const before = (await portalCall(t, owner, 'GET', `/orders/${weighed}`)).json() as Detail;
      const done = await refund(owner, weighed, { requestId: randomUUID(), ...ask });
      expect(done.statusCode, done.body).toBe(200);
      const after = done.json() as Detail;
      expect(said.amountMinor).toBe(after.refundedMinor - before.refundedMinor);
      expect(said.whole).toBe(after.state === 'refunded');
      given.push(said.amountMinor);
    }
    expect(given).toEqual([44, 43, 44]);
    expect(await balanceOf(who.card)).toBe(5_000);
    await expectLedgerSound(t);
  });

  it('refuses positions it cannot take back, and changes nothing', async () => {
    const o = await paidOrder();
    const cases: [Record<string, unknown>, number, string, Record<string, unknown>?][] = [
      [{ positions: [{ positionId: 9, quantity: 1 }] }, 422, 'refund_position_unknown', { positionId: 9 }],
      [
        {
          positions: [
            { positionId: 1, quantity: 1 },
            { positionId: 1, quantity: 1 },
          ],
        },
        422,
        'refund_position_unknown',
        { positionId: 1 },
      ],
      [
        { positions: [{ positionId: 1, quantity: 3 }] },
        422,
        'refund_quantity_exceeds',
        { positionId: 1, remainingQuantity: 2 },
      ],
      [{ amount: '1.00', positions: [{ positionId: 1, quantity: 1 }] }, 422, 'refund_amount_and_positions'],
      [{ positions: [{ positionId: 1, quantity: 0.0005 }] }, 400, 'invalid_request'],
      [{ positions: [{ positionId: 1, quantity: 0 }] }, 400, 'invalid_request'],
      [{ positions: [] }, 400, 'invalid_request'],
    ];
    for (const [body, status, code, details] of cases) {
      const res = await refund(owner, o.orderId, { requestId: randomUUID(), ...body });
      expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).toBe(status);
      expect(res.json().error.code).toBe(code);
      if (details) expect(res.json().error.details).toMatchObject(details);
    }
    const d = (await portalCall(t, owner, 'GET', `/orders/${o.orderId}`)).json() as Detail;
    expect([d.refundedMinor, d.refunds.length]).toEqual([0, 0]);
    expect(await balanceOf(o.card)).toBe(5_000 - 920);
    await expectLedgerSound(t);
  });

  it('refuses what it may not do, and changes nothing', async () => {
    const o = await paidOrder();
    const cases: [PortalSession, string, Record<string, unknown>, number, string][] = [
      [staff, o.orderId, { requestId: randomUUID(), amount: '1.00' }, 403, 'role_forbidden'],
      [owner, o.orderId, { requestId: randomUUID(), amount: '9.21' }, 422, 'refund_exceeds_refundable'],
      [owner, o.orderId, { requestId: randomUUID(), amount: '0.00' }, 400, 'invalid_request'],
      [owner, o.orderId, { requestId: randomUUID(), amount: '1.005' }, 400, 'invalid_request'],
      [owner, o.orderId, { requestId: 'not-a-uuid', amount: '1.00' }, 400, 'invalid_request'],
      [owner, o.orderId, { amount: '1.00' }, 400, 'invalid_request'],
      [owner, 'ord_unknown', { requestId: randomUUID(), amount: '1.00' }, 404, 'not_found'],
    ];
    for (const [who, orderId, body, status, code] of cases) {
      const res = await refund(who, orderId, body);
      expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).toBe(status);
      expect(res.json().error.code).toBe(code);
    }
    const d = (await portalCall(t, owner, 'GET', `/orders/${o.orderId}`)).json() as Detail;
    expect([d.refundedMinor, d.refunds.length]).toEqual([0, 0]);
    expect(await balanceOf(o.card)).toBe(5_000 - 920);
  });

  it('on a phone, in German, the owner refunds an amount with a reason, then one of two coffees, and sees both on the order; staff see no form', async () => {
    const o = await paidOrder();
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    // Each confirmation names the money it gives back, as the service prices it.
    const asked: string[] = [];
    page.on('dialog', (d) => {
      asked.push(d.message().replace(/\s/g, ' '));
      void d.accept();
    });
    await signIn(page, baseUrl, { email: ownerEmail, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/orders/${o.orderId}`);
    const form = page.locator('#order-refund');
    await form.getByLabel('Betrag (leer: alles Erstattbare)').fill('2,20');
    await form.getByLabel('Grund (freiwillig)').fill('Falsches Getränk');
    await Promise.all([page.waitForEvent('load'), form.getByRole('button', { name: 'Erstatten' }).click()]);
    const text = async (selector: string) =>
      (await page.locator(selector).textContent())?.replace(/\s+/g, ' ').trim();
    expect(await text('#order-refunded')).toBe('2,20 €');
    const confirmation =
      'dem Guthaben des Kunden gutschreiben? Eine Erstattung lässt sich nicht rückgängig machen.';
    expect(asked).toEqual([`2,20 € ${confirmation}`]);
    const line = await text('#order-refunds li');
    expect(line).toContain('2,20 € · ein Betrag, keine Positionen');
    expect(line).toContain(`von ${ownerEmail}: „Falsches Getränk“`);
    expect(await balanceOf(o.card)).toBe(5_000 - 920 + 220);
    await fitsWidth(page);
    await page.screenshot({
      path: join(SHOTS, kind === 'pglite' ? 'order-refund-phone.png' : `order-refund-phone-${kind}.png`),
      fullPage: true,
    });
    // Then one of the two coffees (position 1), typed in the form's list of positions.
    const takeBack = page.locator('#order-refund-positions label').filter({ hasText: '#1 ·' });
    expect((await takeBack.textContent())?.replace(/\s+/g, ' ')).toContain('#1 · noch 2 von 2, 7,00 €');
    await takeBack.locator('input').fill('1');
    await form.getByLabel('Grund (freiwillig)').fill('Ein Kaffee kalt');
    await Promise.all([page.waitForEvent('load'), form.getByRole('button', { name: 'Erstatten' }).click()]);
    expect(await text('#order-refunded')).toBe('5,70 €');
    expect(asked[1]).toBe(`3,50 € ${confirmation}`);
    expect(await text('#order-refunds li:nth-child(2)')).toContain('3,50 € · 1 × Article 1001');
    expect(await balanceOf(o.card)).toBe(5_000 - 920 + 220 + 350);
    expect(
      (
        await page.locator('#order-refund-positions label').filter({ hasText: '#1 ·' }).textContent()
      )?.replace(/\s+/g, ' '),
    ).toContain('#1 · noch 1 von 2, 3,50 €');
    // An amount and a position together: the form says so in German and gives nothing back.
    await form.getByLabel('Betrag (leer: alles Erstattbare)').fill('1,00');
    await page
      .locator('#order-refund-positions label')
      .filter({ hasText: '#1 ·' })
      .locator('input')
      .fill('1');
    await form.getByRole('button', { name: 'Erstatten' }).click();
    await expect
      .poll(() => text('#order-refund .form-error'))
      .toBe('Bitte einen Betrag oder Positionen angeben, nicht beides.');
    // Both given, the service refuses to quote it: the form says why and asks nothing.
    expect(asked).toHaveLength(2);
    expect(await balanceOf(o.card)).toBe(5_000 - 920 + 220 + 350);
    await fitsWidth(page);
    await page.locator('#order-refund').screenshot({
      path: join(
        SHOTS,
        kind === 'pglite' ? 'order-refund-positions-phone.png' : `order-refund-positions-phone-${kind}.png`,
      ),
    });
    await page.close();

    const staffPage = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(staffPage, baseUrl, { email: staffEmail, password: PASSWORD });
    await staffPage.goto(`${baseUrl}/portal/orders/${o.orderId}`);
    expect(await staffPage.locator('#order-refund').count()).toBe(0);
    await staffPage.close();
  });
});
