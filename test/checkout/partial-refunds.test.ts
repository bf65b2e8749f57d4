import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_TOPIC } from '../../src/webhooks/webhook.store.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, expectLedgerSound, orderBody, setupCheckout } from './checkout-support.js';

describe.each(databases)('checkout v1: partial refunds on %s', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  beforeAll(async () => {
    // Webhook deliveries stay in the outbox, where the test reads their payloads.
    t = await startApp(kind, { webhookAllowPrivate: true, outboxDisabled: true });
    c = await setupCheckout(t);
    const hook = await c.call('POST', '/api/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      event: 'transaction.status.changed',
    });
    expect(hook.statusCode, hook.body).toBe(201);
  });
  afterAll(async () => {
    await expectLedgerSound(t);
    await t.close();
  });

  const totalOf = async (card: string) =>
    ((await c.call('GET', `/api/v1/profiles/${card}`)).json() as { balance: { totalAmount: number } }).balance
      .totalAmount;
  const refund = (basketId: unknown, body?: unknown) =>
    c.call('POST', `/api/v1/orders/${String(basketId)}/refund`, body);
  /** 2 x 1001 (700) + 3 x 1002 (660) = 1360, paid from a balance of 5000. */
  const paidOrder = async () => {
    const p = await c.profile({ balance: 5_000 });
    // Each booking at its own time, so that the profile's transactions list in one order.
    t.clock.advance(1000);
    const body = orderBody(
      c,
      p.card,
      [
        ['1001', 2],
        ['1002', 3],
      ],
      {
        totalGross: 1_360,
        balance: { requestCharge: true },
      },
    );
    const res = await c.order(body);
    expect(res.statusCode, res.body).toBe(200);
    t.clock.advance(1000);
    return { card: p.card, basketId: body.basketId as string };
  };
  const refundEvents = async (basketId: string) => {
    const rows = await t.database.db
      .selectFrom('outbox_messages')
      .select('payload')
      .where('topic', '=', WEBHOOK_TOPIC)
      .orderBy('id')
      .execute();
    return rows
      .map((r) => (r.payload as { body: { data: Record<string, unknown> } }).body.data)
      .filter((d) => d.basketId === basketId);
  };

  it('a refund of an amount gives that much back; the order is partially_refunded and reads back so', async () => {
    const o = await paidOrder();
    const r = await refund(o.basketId, { amount: 300 });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({
      basketId: o.basketId,
      status: 'partially_refunded',
      refundedAmount: 300,
      refundableAmount: 1_060,
      currency: 'EUR',
      balance: { oldAmount: 3_640, newAmount: 3_940, currency: 'EUR' },
      refund: { amount: 300, positions: [] },
    });
    expect(await totalOf(o.card)).toBe(3_940);
    const read = (await c.call('GET', `/api/v1/orders/${o.basketId}`)).json();
    expect(read).toMatchObject({
      status: 'partially_refunded',
      refundedAmount: 300,
      refundableAmount: 1_060,
    });
    expect(read.refunds).toEqual([r.json().refund]);
  });

  it('a refund of positions prices each in proportion; the last refund of a position gives back what is left', async () => {
    const o = await paidOrder();
    const first = await refund(o.basketId, { positions: [{ positionId: 2, quantity: 1 }] });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().refund.positions).toEqual([{ positionId: 2, quantity: 1, amount: 220 }]);
    const both = await refund(o.basketId, {
      positions: [
        { positionId: 1, quantity: 1 },
        { positionId: 2, quantity: 2 },
      ],
    });
    expect(both.statusCode, both.body).toBe(200);
    expect(both.json().refund).toMatchObject({
      amount: 790,
      positions: [
        { positionId: 1, quantity: 1, amount: 350 },
        { positionId: 2, quantity: 2, amount: 440 },
      ],
    });
    expect(both.json()).toMatchObject({
      status: 'partially_refunded',
      refundedAmount: 1_010,
      refundableAmount: 350,
    });
    const more = await refund(o.basketId, { positions: [{ positionId: 2, quantity: 0.5 }] });
    expect(more.statusCode).toBe(422);
    expect(more.json().error).toMatchObject({
      code: 'refund_quantity_exceeds',
      details: { positionId: 2, remainingQuantity: 0 },
    });
    const last = await refund(o.basketId, { positions: [{ positionId: 1, quantity: 1 }] });
    expect(last.json()).toMatchObject({ status: 'refunded', refundedAmount: 1_360, refundableAmount: 0 });
    expect(await totalOf(o.card)).toBe(5_000);
  });

  it('never more than what remains refundable: amount, positions, unknown positions, both at once refused, nothing booked', async () => {
    const o = await paidOrder();
    expect((await refund(o.basketId, { amount: 1_000 })).statusCode).toBe(200);
    const over = await refund(o.basketId, { amount: 361 });
    expect(over.statusCode).toBe(422);
    expect(over.json().error).toMatchObject({
      code: 'refund_exceeds_refundable',
      details: { refundableAmount: 360 },
    });
    const overByPositions = await refund(o.basketId, { positions: [{ positionId: 1, quantity: 2 }] });
    expect(overByPositions.statusCode).toBe(422);
    expect(overByPositions.json().error.code).toBe('refund_exceeds_refundable');
    const unknown = await refund(o.basketId, { positions: [{ positionId: 9, quantity: 1 }] });
    expect(unknown.json().error).toMatchObject({
      code: 'refund_position_unknown',
      details: { positionId: 9 },
    });
    const twice = await refund(o.basketId, {
      positions: [
        { positionId: 1, quantity: 1 },
        { positionId: 1, quantity: 1 },
      ],
    });
    expect(twice.json().error.code).toBe('refund_position_unknown');
    const bothWays = await refund(o.basketId, { amount: 1, positions: [{ positionId: 1, quantity: 1 }] });
    expect(bothWays.json().error.code).toBe('refund_amount_and_positions');
    const decimals = await refund(o.basketId, { positions: [{ positionId: 1, quantity: 0.0001 }] });
    expect(decimals.statusCode).toBe(400);
    const wrongType = await refund(o.basketId, { amount: '5' + 'x' });
    expect(wrongType.statusCode).toBe(400);
    expect(await totalOf(o.card)).toBe(4_640);
    // The whole refund gives back the rest, and a second one books nothing and answers the same.
    const rest = await refund(o.basketId);
    expect(rest.json()).toMatchObject({ status: 'refunded', refundedAmount: 1_360, refund: { amount: 360 } });
    const again = await refund(o.basketId);
    expect(again.json()).toMatchObject({
      status: 'refunded',
      refundedAmount: 1_360,
      refund: rest.json().refund,
    });
    expect(again.json().balance).toEqual({ oldAmount: 5_000, newAmount: 5_000, currency: 'EUR' });
    const after = await refund(o.basketId, { amount: 1 });
    expect(after.json().error).toMatchObject({
      code: 'refund_exceeds_refundable',
      details: { refundableAmount: 0 },
    });
    expect(await totalOf(o.card)).toBe(5_000);
  });

  it('an order not paid from the balance has nothing to refund in part; its whole refund marks it refunded as before', async () => {
    const p = await c.profile();
    const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220 });
    expect((await c.order(body)).statusCode).toBe(200);
    const part = await refund(body.basketId, { amount: 1 });
    expect(part.json().error).toMatchObject({
      code: 'refund_exceeds_refundable',
      details: { refundableAmount: 0 },
    });
    const whole = await refund(body.basketId);
    expect(whole.json()).toMatchObject({
      status: 'refunded',
      refundedAmount: 0,
      balance: null,
      refund: { amount: 0 },
    });
  });

  it('concurrent partial refunds never give back more than the charge; balance and ledger exact', async () => {
    const o = await paidOrder();
    const answers = await Promise.all(Array.from({ length: 12 }, () => refund(o.basketId, { amount: 250 })));
    const ok = answers.filter((a) => a.statusCode === 200);
    const refused = answers.filter((a) => a.statusCode === 422);
    expect(ok.length).toBe(5);
    expect(refused.length).toBe(7);
    for (const a of refused) expect(a.json().error.code).toBe('refund_exceeds_refundable');
    expect(await totalOf(o.card)).toBe(3_640 + 1_250);
    const read = (await c.call('GET', `/api/v1/orders/${o.basketId}`)).json();
    expect(read).toMatchObject({
      status: 'partially_refunded',
      refundedAmount: 1_250,
      refundableAmount: 110,
    });
    expect(read.refunds.length).toBe(5);
    const txs = (await c.call('GET', `/api/v1/profiles/${o.card}/transactions?limit=100`)).json();
    const refunds = txs.data.filter((x: { kind: string }) => x.kind === 'refund');
    expect(refunds.map((x: { amount: number }) => x.amount)).toEqual([250, 250, 250, 250, 250]);
    await expectLedgerSound(t);
  });

  it('the receipt shows each refund; the refund webhook says the amount and what remains refundable', async () => {
    const o = await paidOrder();
    const placed = (await c.call('GET', `/api/v1/orders/${o.basketId}`)).json();
    expect((await refund(o.basketId, { positions: [{ positionId: 1, quantity: 1 }] })).statusCode).toBe(200);
    expect((await refund(o.basketId, { amount: 10 })).statusCode).toBe(200);
    const receipt = await t.app.inject({ method: 'GET', url: new URL(placed.receiptUrl).pathname });
    expect(receipt.statusCode).toBe(200);
    expect(receipt.body).toContain('1 × Article 1001');
    expect(receipt.body).toMatch(/3[.,]50/);
    expect(receipt.body).toMatch(/0[.,]10/);
    const events = await refundEvents(o.basketId);
    const refunds = events.filter((e) => e.kind === 'refund');
    expect(refunds.map((e) => [e.status, e.amount, e.refundableAmount])).toEqual([
      ['completed', 350, 1_010],
      ['completed', 10, 1_000],
    ]);
    // The charge stays completed until everything is given back.
    expect(events.filter((e) => e.kind === 'charge').map((e) => e.status)).toEqual(['completed']);
    expect((await refund(o.basketId)).json().refund.amount).toBe(1_000);
    const after = await refundEvents(o.basketId);
    expect(after.filter((e) => e.kind === 'charge').map((e) => e.status)).toEqual(['completed', 'refunded']);
    expect(after.filter((e) => e.kind === 'refund').at(-1)).toMatchObject({
      amount: 1_000,
      refundableAmount: 0,
    });
  });
});
