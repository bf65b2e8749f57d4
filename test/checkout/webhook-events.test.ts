import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_TOPIC } from '../../src/webhooks/webhook.store.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { Receiver } from '../support/webhook-receiver.js';
import { type CheckoutClient, expectLedgerSound, orderBody, setupCheckout } from './checkout-support.js';

interface EventData {
  transactionId: string;
  sequence: number;
  kind: string;
  status: string;
  previousStatus: string | null;
  profileReference: string | null;
  basketId: string | null;
}

describe.each(databases)('webhook events receivers can order and trust on %s', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  const receiver = new Receiver();
  beforeAll(async () => {
    await receiver.start();
    t = await startApp(kind, { webhookAllowPrivate: true, outboxPollMs: 20 });
    c = await setupCheckout(t);
    const hook = await c.call('POST', '/api/v1/webhooks', {
      url: receiver.url,
      event: 'transaction.status.changed',
    });
    expect(hook.statusCode, hook.body).toBe(201);
  });
  afterAll(async () => {
    await expectLedgerSound(t);
    await t.close();
    await receiver.stop();
  });

  /** The events written so far, oldest first, with their message ids. */
  const written = async () =>
    (
      await t.database.db
        .selectFrom('outbox_messages')
        .select(['id', 'payload'])
        .where('topic', '=', WEBHOOK_TOPIC)
        .orderBy('id')
        .execute()
    ).map((m) => {
      const p = m.payload as unknown as { messageId: string; body: { data: EventData } };
      return { messageId: p.messageId, ...p.body.data };
    });

  it('every event of a transaction names the same profileReference and basketId, the refund’s and the cancellation’s too', async () => {
    const p = await c.profile({ balance: 5_000 });
    const order = orderBody(c, p.card, [['1004', 2]], { totalGross: 200, balance: { requestCharge: true } });
    expect((await c.order(order)).statusCode).toBe(200);
    const refund = await c.call('POST', `/api/v1/orders/${order.basketId as string}/refund`);
    expect(refund.statusCode, refund.body).toBe(200);
    const r = await c.call('POST', `/api/v1/profiles/${p.card}/reservations`, {
      amount: 300,
      currency: 'EUR',
    });
    expect((await c.call('DELETE', `/api/v1/reservations/${r.json().reference as string}`)).statusCode).toBe(
      200,
    );
    const events = (await written()).filter((e) => e.profileReference === p.card || e.basketId !== null);
    const ofOrder = events.filter((e) => e.kind === 'charge' || e.kind === 'refund');
    expect(ofOrder.map((e) => `${e.kind}:${e.status}`)).toEqual([
      'charge:completed',
      'refund:completed',
      'charge:refunded',
    ]);
    for (const e of ofOrder) {
      expect(e).toMatchObject({ profileReference: p.card, basketId: order.basketId });
    }
    const reservation = events.filter((e) => e.kind === 'reservation');
    expect(reservation.map((e) => [e.status, e.profileReference, e.basketId])).toEqual([
      ['active', p.card, null],
      ['cancelled', p.card, null],
    ]);
  });

  it('each event carries its sequence within its transaction: 1 for the first status, one more for each change', async () => {
    const p = await c.profile({ balance: 1_000 });
    const order = orderBody(c, p.card, [['1004', 1]], { totalGross: 100, balance: { requestCharge: true } });
    const placed = await c.order(order);
    expect(placed.statusCode).toBe(200);
    await c.call('POST', `/api/v1/orders/${order.basketId as string}/refund`);
    const charge = (await written()).filter((e) => e.kind === 'charge' && e.basketId === order.basketId);
    expect(charge.map((e) => [e.sequence, e.previousStatus, e.status])).toEqual([
      [1, null, 'completed'],
      [2, 'completed', 'refunded'],
    ]);
    expect(new Set(charge.map((e) => e.transactionId)).size).toBe(1);
  });

  it('message ids are opaque and unique: msg_ and 24 random base32 characters, sent as webhook-id', async () => {
    const events = await written();
    expect(events.length).toBeGreaterThan(5);
    for (const e of events) expect(e.messageId).toMatch(/^msg_[a-z2-7]{24}$/);
    expect(new Set(events.map((e) => e.messageId)).size).toBe(events.length);
    const received = await receiver.waitFor(events.length, t.clock);
    expect(new Set(received.map((r) => String(r.headers['webhook-id'])))).toEqual(
      new Set(events.map((e) => e.messageId)),
    );
  });
});
