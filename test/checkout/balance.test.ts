import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrderInput, placeOrder } from '../../src/orders/order.service.js';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import {
  type CheckoutClient,
  callerOf,
  expectLedgerSound,
  orderBody,
  setupCheckout,
} from './checkout-support.js';

describe.each(databases)('checkout v1 balance: reservations and top-ups on %s', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  beforeAll(async () => {
    t = await startApp(kind);
    c = await setupCheckout(t);
  });
  afterAll(async () => {
    await expectLedgerSound(t);
    await t.close();
  });

  const balanceOf = async (ref: string) =>
    (await c.call('GET', `/api/v1/profiles/${ref}`)).json().balance as {
      availableAmount: number;
      totalAmount: number;
      remainingTopUpAmount: number;
    };
  const reserve = (ref: string, amount: number, expiresInSeconds?: number) =>
    c.call('POST', `/api/v1/profiles/${ref}/reservations`, {
      amount,
      currency: 'EUR',
      ...(expiresInSeconds ? { expiresInSeconds } : {}),
    });
  /** An order of `amount` cents of PLU 1004 (1.00 each): amount must be a multiple of 100. */
  const orderOf = (ref: string, amount: number, reservation?: Record<string, unknown>) =>
    c.order(
      orderBody(c, ref, [['1004', amount / 100]], {
        totalGross: amount,
        balance: { requestCharge: true, ...(reservation ? { reservation } : {}) },
      }),
    );

  it('the profile read shows personal info, balance with config, tags; availableAmount leaves out live reservations', async () => {
    const p = await c.profile({ balance: 10_000 });
    const read = await c.call('GET', `/api/v1/profiles/${p.card}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({
      fullName: 'Ada Lovelace',
      language: 'en',
      tags: [{ name: 'vip' }],
      balance: { availableAmount: 10_000, totalAmount: 10_000, currency: 'EUR' },
    });
    const r = await reserve(p.card, 5_000);
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json()).toMatchObject({ amount: 5_000, remainingAmount: 5_000, status: 'active' });
    expect(await balanceOf(p.card)).toMatchObject({ availableAmount: 5_000, totalAmount: 10_000 });
  });

  it('reserve 50, order 30 with cancelRemainingAmount: 20 free again', async () => {
    const p = await c.profile({ balance: 10_000 });
    const r = (await reserve(p.card, 5_000)).json();
    const o = await orderOf(p.card, 3_000, { reference: r.reference, cancelRemainingAmount: true });
    expect(o.statusCode, o.body).toBe(200);
    expect(o.json().balance).toEqual({
      oldAmount: 10_000,
      newAmount: 7_000,
      currency: 'EUR',
      reservation: {
        oldAmountExcludingReservation: 5_000,
        newAmountExcludingReservation: 7_000,
        reservedAmountRemaining: 0,
        reservedAmountUsed: 3_000,
        unreservedAmountUsed: 0,
      },
    });
    expect(await balanceOf(p.card)).toMatchObject({ availableAmount: 7_000, totalAmount: 7_000 });
    const read = await c.call('GET', `/api/v1/reservations/${r.reference}`);
    expect(read.json()).toMatchObject({ status: 'used', remainingAmount: 0 });
  });

  it('the order written in one statement answers the same text as the order in separate statements', async () => {
    const caller = await callerOf(t, c);
    const texts: string[] = [];
    for (const path of ['one statement', 'separate statements']) {
      const p = await c.profile({ balance: 10_000 });
      const r = (await reserve(p.card, 5_000)).json();
      const body = orderBody(c, p.card, [['1004', 30]], {
        totalGross: 3_000,
        balance: {
          requestCharge: true,
          reservation: { reference: r.reference, cancelRemainingAmount: false },
        },
      });
      const text =
        path === 'one statement'
          ? (await c.order(body)).body
          : await placeOrder(t.app.services.checkout, caller, body as unknown as OrderInput, null);
      texts.push(
        text
          .replace(String(body.basketId), '<basketId>')
          .replace(p.card, '<card>')
          .replace(/receipts\/[A-Za-z0-9_-]+/, 'receipts/<id>'),
      );
    }
    expect(texts[0]).toContain('"reservedAmountRemaining":2000');
    expect(texts[0]).toBe(texts[1]);
  });

  it("a reservation's reference is a UUID of version 7: it begins with the time the reservation was made", async () => {
    const p = await c.profile({ balance: 10_000 });
    const at = t.clock.ms;
    const r = await reserve(p.card, 1_000);
    expect(r.statusCode, r.body).toBe(201);
    const reference: string = r.json().reference;
    expect(reference).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(reference.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('order 60 against a reservation of 50 with 10 unreserved: unreservedAmountUsed 10', async () => {
    const p = await c.profile({ balance: 6_000 });
    const r = (await reserve(p.card, 5_000)).json();
    const o = await orderOf(p.card, 6_000, { reference: r.reference });
    expect(o.statusCode, o.body).toBe(200);
    expect(o.json().balance.reservation).toEqual({
      oldAmountExcludingReservation: 1_000,
      newAmountExcludingReservation: 0,
      reservedAmountRemaining: 0,
      reservedAmountUsed: 5_000,
      unreservedAmountUsed: 1_000,
    });
    expect(await balanceOf(p.card)).toMatchObject({ availableAmount: 0, totalAmount: 0 });
  });

  it('without the reference, reserved money cannot be spent: insufficient_balance, nothing booked', async () => {
    const p = await c.profile({ balance: 5_000 });
    expect((await reserve(p.card, 4_000)).statusCode).toBe(201);
    const o = await orderOf(p.card, 2_000);
    expect(o.statusCode).toBe(422);
    expect(o.json().error.code).toBe('insufficient_balance');
    expect(await balanceOf(p.card)).toMatchObject({ availableAmount: 1_000, totalAmount: 5_000 });
    const more = await reserve(p.card, 2_000);
    expect(more.statusCode).toBe(422);
    expect(more.json().error.code).toBe('insufficient_balance');
  });

  it('an expired reservation frees its amount without any job running, and cannot be charged', async () => {
    const p = await c.profile({ balance: 5_000 });
    const r = (await reserve(p.card, 5_000, 60)).json();
    expect((await balanceOf(p.card)).availableAmount).toBe(0);
    t.clock.advance(61_000);
    expect((await balanceOf(p.card)).availableAmount).toBe(5_000);
    expect((await c.call('GET', `/api/v1/reservations/${r.reference}`)).json()).toMatchObject({
      status: 'expired',
      remainingAmount: 0,
    });
    const o = await orderOf(p.card, 1_000, { reference: r.reference });
    expect(o.statusCode).toBe(422);
    expect(o.json().error.code).toBe('reservation_not_usable');
  });

  it('"never what other reservations hold": a POS withdrawal from a card of the profile cannot spend what a live reservation holds', async () => {
    const p = await c.profile({ balance: 10_000 });
    const till = tokens(c.term);
    const r = (await reserve(p.card, 6_000, 60)).json();
    const tooMuch = await till.withdraw(p.card, '40.01');
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json()).toMatchObject({ ErrorId: 13003 });
    expect(await balanceOf(p.card)).toMatchObject({ availableAmount: 4_000, totalAmount: 10_000 });
    const fits = await till.withdraw(p.card, '40.00');
    expect(fits.statusCode, fits.body).toBe(200);
    expect(fits.json()).toMatchObject({ Balance: 60 });
    // The reservation still pays its whole amount.
    const o = await orderOf(p.card, 6_000, { reference: r.reference });
    expect(o.statusCode, o.body).toBe(200);
    expect(o.json().balance).toMatchObject({
      oldAmount: 6_000,
      newAmount: 0,
      reservation: { reservedAmountUsed: 6_000, unreservedAmountUsed: 0 },
    });

    // An expired reservation holds nothing for the POS either.
    const q = await c.profile({ balance: 5_000 });
    await reserve(q.card, 5_000, 60);
    expect((await till.withdraw(q.card, '1.00')).json()).toMatchObject({ ErrorId: 13003 });
    t.clock.advance(61_000);
    const after = await till.withdraw(q.card, '50.00');
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json()).toMatchObject({ Balance: 0 });
  });

  it('reservations and POS withdrawals of one profile at once never promise more than the balance', async () => {
    const p = await c.profile({ balance: 2_000 });
    const till = tokens(c.term);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0 ? reserve(p.card, 100) : till.withdraw(p.card, '1.00'),
      ),
    );
    const reserved = answers.filter((a, i) => i % 2 === 0 && a.statusCode === 201).length;
    const withdrawn = answers.filter((a, i) => i % 2 === 1 && a.statusCode === 200).length;
    expect(reserved + withdrawn).toBe(20);
    for (const a of answers) expect([200, 201, 400, 422], a.body).toContain(a.statusCode);
    expect(await balanceOf(p.card)).toMatchObject({
      availableAmount: 0,
      totalAmount: 2_000 - withdrawn * 100,
    });
  });

  it('unknown, foreign and cancelled reservations: reservation_not_usable; DELETE frees the amount', async () => {
    const p = await c.profile({ balance: 5_000 });
    const q = await c.profile({ balance: 5_000 });
    const unknown = await orderOf(p.card, 100, { reference: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.json().error.code).toBe('reservation_not_usable');
    const foreign = (await reserve(q.card, 1_000)).json();
    expect((await orderOf(p.card, 100, { reference: foreign.reference })).json().error.code).toBe(
      'reservation_not_usable',
    );
    const mine = (await reserve(p.card, 3_000)).json();
    const del = await c.call('DELETE', `/api/v1/reservations/${mine.reference}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ status: 'cancelled', remainingAmount: 0 });
    expect((await balanceOf(p.card)).availableAmount).toBe(5_000);
    expect((await orderOf(p.card, 100, { reference: mine.reference })).json().error.code).toBe(
      'reservation_not_usable',
    );
    expect(
      (await c.call('GET', '/api/v1/reservations/00000000-0000-4000-8000-000000000000')).statusCode,
    ).toBe(404);
  });

  it('top-ups enforce isTopUpAllowed, single bounds, maxAmount and the monthly limit; remainingTopUpAmount follows', async () => {
    const p = await c.profile({
      balanceConfig: {
        maxAmount: 20_000,
        minSingleTopUpAmount: 500,
        maxSingleTopUpAmount: 10_000,
        maxMonthlyTopUpAmount: 15_000,
      },
    });
    const top = (amount: number) =>
      c.call('POST', `/api/v1/profiles/${p.card}/topUps`, { amount, currency: 'EUR' });
    expect((await top(499)).json().error.code).toBe('top_up_below_minimum');
    expect((await top(10_001)).json().error.code).toBe('top_up_above_maximum');
    const ok = await top(10_000);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ status: 'completed', amount: 10_000, oldAmount: 0, newAmount: 10_000 });
    expect((await balanceOf(p.card)).remainingTopUpAmount).toBe(5_000);
    const monthly = await top(6_000);
    expect(monthly.statusCode).toBe(422);
    expect(monthly.json().error.code).toBe('monthly_top_up_exceeded');
    expect((await top(5_000)).statusCode).toBe(201);
    expect((await balanceOf(p.card)).remainingTopUpAmount).toBe(0);
    expect(
      (await c.call('POST', `/api/v1/profiles/${p.card}/topUps`, { amount: 100, currency: 'USD' })).json()
        .error.code,
    ).toBe('currency_mismatch');

    const capped = await c.profile({ balanceConfig: { maxAmount: 1_000 } });
    const over = await c.call('POST', `/api/v1/profiles/${capped.card}/topUps`, {
      amount: 1_001,
      currency: 'EUR',
    });
    expect(over.json().error.code).toBe('balance_above_maximum');
    const closed = await c.profile({ balanceConfig: { isTopUpAllowed: false } });
    const no = await c.call('POST', `/api/v1/profiles/${closed.card}/topUps`, {
      amount: 100,
      currency: 'EUR',
    });
    expect(no.statusCode).toBe(422);
    expect(no.json().error.code).toBe('top_up_not_allowed');
    expect((await balanceOf(closed.card)).remainingTopUpAmount).toBe(0);
  });

  it('the monthly limit counts the calendar month in the merchant’s time zone', async () => {
    // 2026-03-31T22:30Z is already April 1st in Berlin (UTC+2 from March 29th).
    t.clock.ms = Date.parse('2026-03-31T21:30:00Z');
    const p = await c.profile({ balanceConfig: { maxMonthlyTopUpAmount: 1_000 } });
    const top = () => c.call('POST', `/api/v1/profiles/${p.card}/topUps`, { amount: 1_000, currency: 'EUR' });
    expect((await top()).statusCode).toBe(201);
    t.clock.ms = Date.parse('2026-03-31T21:59:00Z');
    expect((await top()).json().error.code).toBe('monthly_top_up_exceeded');
    t.clock.ms = Date.parse('2026-03-31T22:00:00Z');
    expect((await top()).statusCode).toBe(201);
    t.clock.ms = Date.now();
  });

  it('a profile that may not be charged: charge_not_allowed', async () => {
    const p = await c.profile({ balance: 1_000, balanceConfig: { isChargeAllowed: false } });
    const o = await orderOf(p.card, 100);
    expect(o.statusCode).toBe(422);
    expect(o.json().error.code).toBe('charge_not_allowed');
  });
});
