import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/webhooks/target-check.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type Received, Receiver } from '../support/webhook-receiver.js';
import { type CheckoutClient, expectLedgerSound, orderBody, setupCheckout } from './checkout-support.js';

/** The Standard Webhooks check a receiver makes: HMAC-SHA256 of "id.timestamp.body" with the secret's bytes. */
function verifySignature(secret: string, r: Received): boolean {
  const id = String(r.headers['webhook-id']);
  const ts = String(r.headers['webhook-timestamp']);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${r.body}`).digest('base64');
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((s) => s === `v1,${expected}`);
}

describe('webhook targets: private and loopback addresses are refused', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['192.168.0.10', true],
    ['172.20.0.1', true],
    ['169.254.169.254', true],
    ['::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
    ['93.184.216.34', false],
    ['2606:4700::1111', false],
  ])('%s private: %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe.each(databases)('checkout webhooks on %s', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  const receiver = new Receiver();
  beforeAll(async () => {
    await receiver.start();
    t = await startApp(kind, {
      webhookAllowPrivate: true,
      outboxPollMs: 20,
      outboxRetryScheduleMs: [50, 50, 50],
    });
    c = await setupCheckout(t);
  });
  afterAll(async () => {
    await expectLedgerSound(t);
    await t.close();
    await receiver.stop();
  });

  it('registration: 201 with a whsec_ secret; unknown event and non-http URLs 422; read, list, delete by id', async () => {
    const bad = await c.call('POST', '/api/v1/webhooks', { url: receiver.url, event: 'order.created' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.code).toBe('webhook_event_unknown');
    const ftp = await c.call('POST', '/webhooks', {
      url: 'ftp://example.com/x',
      event: 'transaction.status.changed',
    });
    expect(ftp.statusCode).toBe(422);
    expect(ftp.json().error.code).toBe('webhook_url_refused');
    const made = await c.call('POST', '/webhooks', {
      url: 'http://127.0.0.1:9/x',
      event: 'transaction.status.changed',
    });
    expect(made.statusCode, made.body).toBe(201);
    const hook = made.json();
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(24);
    expect((await c.call('GET', `/api/v1/webhooks/${hook.id}`)).json()).toEqual(hook);
    // The contract's path without /api/v1 reads the same webhook.
    expect((await c.call('GET', `/webhooks/${hook.id}`)).json()).toEqual(hook);
    expect((await c.call('GET', '/webhooks')).json()).toEqual({
      data: [hook],
      hasMore: false,
      nextCursor: null,
    });
    const other = await setupCheckout(t);
    expect((await other.call('GET', `/api/v1/webhooks/${hook.id}`)).statusCode).toBe(404);
    expect((await other.call('DELETE', `/api/v1/webhooks/${hook.id}`)).statusCode).toBe(404);
    expect((await c.call('DELETE', `/api/v1/webhooks/${hook.id}`)).statusCode).toBe(204);
    expect((await c.call('GET', `/api/v1/webhooks/${hook.id}`)).statusCode).toBe(404);
  });

  it('every status change of a balance transaction is delivered, signed the Standard Webhooks way, retried until it gets through', async () => {
    const made = await c.call('POST', '/api/v1/webhooks', {
      url: receiver.url,
      event: 'transaction.status.changed',
    });
    const secret = made.json().secret as string;
    receiver.failFirst = 2;
    const p = await c.profile({ balance: 1_000 });
    const [first] = await receiver.waitFor(3, t.clock);
    expect(receiver.received.slice(0, 3).map((r) => r.headers['webhook-id'])).toEqual(
      Array(3).fill(first?.headers['webhook-id']),
    );
    const body = JSON.parse(receiver.received[2]?.body ?? '{}');
    expect(body).toMatchObject({
      type: 'transaction.status.changed',
      data: {
        kind: 'top_up',
        status: 'completed',
        previousStatus: null,
        amount: 1_000,
        currency: 'EUR',
        profileReference: p.card,
      },
    });
    for (const r of receiver.received) expect(verifySignature(secret, r)).toBe(true);
    // The dispatcher records an attempt after the receiver has answered it: wait for the third.
    const recorded = () =>
      t.database.db.selectFrom('outbox_attempts').select(['attempt', 'ok']).orderBy('attempt').execute();
    let attempts = await recorded();
    for (let i = 0; i < 100 && attempts.length < 3; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      attempts = await recorded();
    }
    expect(attempts.map((a) => a.ok)).toEqual([false, false, true]);

    const order = orderBody(c, p.card, [['1002', 1]], { totalGross: 220, balance: { requestCharge: true } });
    expect((await c.order(order)).statusCode).toBe(200);
    expect((await c.call('POST', `/api/v1/orders/${order.basketId as string}/refund`)).statusCode).toBe(200);
    const all = await receiver.waitFor(6, t.clock);
    const events = all.slice(3).map((r) => JSON.parse(r.body).data as Record<string, unknown>);
    expect(
      events.map((e) => `${String(e.kind)}:${String(e.previousStatus)}->${String(e.status)}`).sort(),
    ).toEqual(['charge:completed->refunded', 'charge:null->completed', 'refund:null->completed']);
    expect(events.find((e) => e.kind === 'charge')).toMatchObject({ amount: 220, basketId: order.basketId });
    for (const r of all) expect(verifySignature(secret, r)).toBe(true);
  });

  it('a webhook of another merchant gets nothing, and a deleted webhook gets no further delivery', async () => {
    const before = receiver.received.length;
    const other = await setupCheckout(t);
    await other.profile({ balance: 500 });
    const hooks = (await c.call('GET', '/api/v1/webhooks?limit=100')).json().data as { id: string }[];
    for (const h of hooks) await c.call('DELETE', `/api/v1/webhooks/${h.id}`);
    await c.profile({ balance: 500 });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.length).toBe(before);
  });
});

describe('webhook registration without WEBHOOK_ALLOW_PRIVATE', () => {
  it('a loopback or private target is refused with 422 webhook_url_refused', async () => {
    const t = await startApp('pglite');
    try {
      const c = await setupCheckout(t);
      for (const url of [
        'http://127.0.0.1:8080/x',
        'http://[::1]/x',
        'https://10.0.0.5/hook',
        'http://localhost/x',
      ]) {
        const res = await c.call('POST', '/api/v1/webhooks', { url, event: 'transaction.status.changed' });
        expect(res.statusCode, url).toBe(422);
        expect(res.json().error.code).toBe('webhook_url_refused');
      }
    } finally {
      await t.close();
    }
  });
});
