import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestSha256 } from '../../src/checkout/keyed-route.js';
import { CLAIM_LEASE_MS, IDEMPOTENCY_TTL_MS, finishIdempotent } from '../../src/orders/idempotency.store.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import {
  type CheckoutClient,
  bookedTopUps,
  callerOf,
  expectLedgerSound,
  orderBody,
  setupCheckout,
} from './checkout-support.js';

describe.each(databases)('checkout writes under an Idempotency-Key on %s', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  beforeAll(async () => {
    t = await startApp(kind, { webhookAllowPrivate: true });
    c = await setupCheckout(t);
    // A webhook of the merchant, so that every status change writes one delivery message.
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

  const keyed = (method: string, url: string, key: string, body?: unknown) =>
    c.call(method, url, body, { 'idempotency-key': key });
  const total = async (card: string) =>
    (await c.call('GET', `/api/v1/profiles/${card}`)).json().balance.totalAmount as number;
  const topUp = { amount: 500, currency: 'EUR' };

  it('a retried top-up with the same key credits once: the first answer again, with Idempotent-Replayed: true', async () => {
    const p = await c.profile({ balance: 2_000 });
    const first = await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'top-up-1', topUp);
    const retry = await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'top-up-1', topUp);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toBe(first.body);
    expect(first.json()).toMatchObject({ oldAmount: 2_000, newAmount: 2_500 });
    expect(await total(p.card)).toBe(2_500);
    // The funding top-up and this one: two of each, not three.
    expect(await bookedTopUps(t.database.db, p.card)).toEqual({ transactions: 2, transfers: 2, webhooks: 2 });
  });

  it('without a key every top-up books, as before', async () => {
    const p = await c.profile();
    await c.call('POST', `/api/v1/profiles/${p.card}/topUps`, topUp);
    await c.call('POST', `/api/v1/profiles/${p.card}/topUps`, topUp);
    expect(await total(p.card)).toBe(1_000);
  });

  it('the same key with another body, path or method is refused with idempotency_key_reused and books nothing', async () => {
    const p = await c.profile();
    const q = await c.profile();
    expect((await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'k-other', topUp)).statusCode).toBe(201);
    const other = await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'k-other', {
      ...topUp,
      amount: 501,
    });
    expect(other.statusCode).toBe(422);
    expect(other.json().error.code).toBe('idempotency_key_reused');
    const elsewhere = await keyed('POST', `/api/v1/profiles/${q.card}/topUps`, 'k-other', topUp);
    expect(elsewhere.json().error.code).toBe('idempotency_key_reused');
    const reserve = await keyed('POST', `/api/v1/profiles/${p.card}/reservations`, 'k-other', topUp);
    expect(reserve.json().error.code).toBe('idempotency_key_reused');
    expect([await total(p.card), await total(q.card)]).toEqual([500, 0]);
    expect((await c.call('GET', `/api/v1/profiles/${p.card}`)).json().balance.availableAmount).toBe(500);
  });

  it('a refusal is the answer to its key: replayed, and the same key books nothing later even when it could', async () => {
    const p = await c.profile({ balanceConfig: { isTopUpAllowed: false } });
    const first = await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'k-refused', topUp);
    expect(first.statusCode).toBe(422);
    expect(first.json().error.code).toBe('top_up_not_allowed');
    const again = await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'k-refused', topUp);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('keys are per client: another client’s same key is another request', async () => {
    const other = await setupCheckout(t);
    const p = await c.profile();
    const mine = await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'shared-name', topUp);
    const q = await other.profile();
    const theirs = await other.call('POST', `/api/v1/profiles/${q.card}/topUps`, topUp, {
      'idempotency-key': 'shared-name',
    });
    expect([mine.statusCode, theirs.statusCode]).toEqual([201, 201]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a key is kept 24 hours: after that the same key and body books again', async () => {
    const p = await c.profile();
    expect((await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'k-day', topUp)).statusCode).toBe(201);
    t.clock.advance(23 * 3600_000);
    const within = await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'k-day', topUp);
    expect(within.headers['idempotent-replayed']).toBe('true');
    t.clock.advance(3600_000 + 1);
    const later = await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'k-day', topUp);
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await total(p.card)).toBe(1_000);
  });

  it('the API document shows the Idempotent-Replayed header on every keyed write', () => {
    const doc = t.app.swagger() as unknown as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>
      >;
    };
    for (const [path, method, status] of [
      ['/api/v1/profiles/{reference}/topUps', 'post', '201'],
      ['/api/v1/profiles/{reference}/reservations', 'post', '201'],
      ['/api/v1/reservations/{reference}', 'delete', '200'],
      ['/api/v1/orders/{basketId}/refund', 'post', '200'],
      ['/api/v1/webhooks', 'post', '201'],
      ['/webhooks', 'post', '201'],
    ] as const) {
      const headers = doc.paths[path]?.[method]?.responses[status]?.headers;
      expect(headers?.['Idempotent-Replayed'], `${method} ${path}`).toMatchObject({
        schema: { type: 'string', enum: ['true'] },
      });
    }
  });

  it('a malformed Idempotency-Key is refused with 400 idempotency_key_invalid', async () => {
    const p = await c.profile();
    const bad = await keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'two words', topUp);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('idempotency_key_invalid');
    expect(await total(p.card)).toBe(0);
  });

  it('20 concurrent identical top-ups book once: one ledger posting, one balance change, one webhook, 20 identical answers', async () => {
    const p = await c.profile();
    const answers: LightMyRequestResponse[] = await Promise.all(
      Array.from({ length: 20 }, () => keyed('POST', `/api/v1/profiles/${p.card}/topUps`, 'burst', topUp)),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await total(p.card)).toBe(500);
    expect(await bookedTopUps(t.database.db, p.card)).toEqual({ transactions: 1, transfers: 1, webhooks: 1 });
  });

  it('reservations, their cancellation, refunds and webhook registrations replay under their key', async () => {
    const p = await c.profile({ balance: 5_000 });
    const res = { amount: 1_000, currency: 'EUR' };
    const r1 = await keyed('POST', `/api/v1/profiles/${p.card}/reservations`, 'res-1', res);
    const r2 = await keyed('POST', `/api/v1/profiles/${p.card}/reservations`, 'res-1', res);
    expect(r1.statusCode, r1.body).toBe(201);
    expect([r2.statusCode, r2.body, r2.headers['idempotent-replayed']]).toEqual([201, r1.body, 'true']);
    expect((await c.call('GET', `/api/v1/profiles/${p.card}`)).json().balance.availableAmount).toBe(4_000);

    const ref = r1.json().reference as string;
    const cancel1 = await keyed('DELETE', `/api/v1/reservations/${ref}`, 'cancel-1');
    const cancel2 = await keyed('DELETE', `/api/v1/reservations/${ref}`, 'cancel-1');
    expect(cancel1.json()).toMatchObject({ status: 'cancelled', remainingAmount: 0 });
    expect([cancel2.statusCode, cancel2.body, cancel2.headers['idempotent-replayed']]).toEqual([
      200,
      cancel1.body,
      'true',
    ]);

    const order = orderBody(c, p.card, [['1004', 3]], { totalGross: 300, balance: { requestCharge: true } });
    expect((await c.order(order)).statusCode).toBe(200);
    const url = `/api/v1/orders/${order.basketId as string}/refund`;
    const f1 = await keyed('POST', url, 'refund-1');
    const f2 = await keyed('POST', url, 'refund-1');
    expect(f1.json()).toMatchObject({ status: 'refunded', refundedAmount: 300 });
    expect([f2.body, f2.headers['idempotent-replayed']]).toEqual([f1.body, 'true']);
    expect(await total(p.card)).toBe(5_000);

    const hook = { url: 'http://127.0.0.1:9/other', event: 'transaction.status.changed' };
    const w1 = await keyed('POST', '/api/v1/webhooks', 'hook-1', hook);
    const w2 = await keyed('POST', '/api/v1/webhooks', 'hook-1', hook);
    expect(w1.statusCode, w1.body).toBe(201);
    expect([w2.statusCode, w2.body, w2.headers['idempotent-replayed']]).toEqual([201, w1.body, 'true']);
    const hooks = (await c.call('GET', '/api/v1/webhooks?limit=100')).json().data as { url: string }[];
    expect(hooks.filter((h) => h.url === hook.url)).toHaveLength(1);
  });

  it('a key left in flight by a request that never finished is taken over by the same request once the claim has run out; it books once, and the request that left it can no longer keep an answer', async () => {
    const p = await c.profile({ balance: 1_000 });
    const { clientId } = await callerOf(t, c);
    const url = `/api/v1/profiles/${p.card}/topUps`;
    const sha = requestSha256({ method: 'POST', url, rawBody: JSON.stringify(topUp) });
    // What a server stopped mid-request leaves: the key taken, its claim, no answer.
    await t.database.db
      .insertInto('checkout_idempotency_keys')
      .values({
        client_id: clientId,
        key: 'left-behind',
        request_sha256: sha,
        status: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: new Date(t.clock.nowMs()),
        expires_at: new Date(t.clock.nowMs() + IDEMPOTENCY_TTL_MS),
        claim: 'claim-of-the-stopped-request',
      })
      .execute();
    t.clock.advance(CLAIM_LEASE_MS);
    const retry = await keyed('POST', url, 'left-behind', topUp);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.json()).toMatchObject({ oldAmount: 1_000, newAmount: 1_500 });
    // Should the stopped request still come to keep its answer, in the transaction of its booking,
    // its claim is gone: the keeping fails, and with it the booking.
    await expect(
      finishIdempotent(t.database.db, clientId, 'left-behind', 'claim-of-the-stopped-request', 201, '{}'),
    ).rejects.toMatchObject({ entry: { code: 'idempotency_key_in_flight' } });
    const again = await keyed('POST', url, 'left-behind', topUp);
    expect([again.statusCode, again.body, again.headers['idempotent-replayed']]).toEqual([
      201,
      retry.body,
      'true',
    ]);
    expect(await total(p.card)).toBe(1_500);
  });

  /** `work` while every transfer of money the service writes fails for a full disk, as PostgreSQL reports it. */
  const onAFullDisk = async (work: () => Promise<void>) => {
    const { db } = t.database;
    await sql`CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full';
                END $$`.execute(db);
    await sql`CREATE TRIGGER disk_full BEFORE INSERT ON ledger_transfers
                FOR EACH ROW EXECUTE FUNCTION disk_full()`.execute(db);
    try {
      await work();
    } finally {
      await sql`DROP TRIGGER disk_full ON ledger_transfers`.execute(db);
      await sql`DROP FUNCTION disk_full()`.execute(db);
    }
  };
  const expectToRepeatLater = (answer: LightMyRequestResponse) => {
    expect(answer.statusCode, answer.body).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.json().error.code).toBe('service_unavailable');
  };

  it('an order and a top-up that meet a full disk answer 503 service_unavailable with Retry-After and book nothing; reads go on; once there is room the same requests under the same keys book once', async () => {
    const p = await c.profile({ balance: 1_000 });
    const order = orderBody(c, p.card, [['1002', 1]], { totalGross: 220, balance: { requestCharge: true } });
    const topUpUrl = `/api/v1/profiles/${p.card}/topUps`;
    await onAFullDisk(async () => {
      const placed = await c.order(order, { key: 'order-on-a-full-disk' });
      const credited = await keyed('POST', topUpUrl, 'top-up-on-a-full-disk', topUp);
      for (const answer of [placed, credited]) expectToRepeatLater(answer);
      expect(await total(p.card)).toBe(1_000);
    });
    const placed = await c.order(order, { key: 'order-on-a-full-disk' });
    const credited = await keyed('POST', topUpUrl, 'top-up-on-a-full-disk', topUp);
    expect([placed.statusCode, placed.headers['idempotent-replayed']], placed.body).toEqual([200, undefined]);
    expect([credited.statusCode, credited.headers['idempotent-replayed']], credited.body).toEqual([
      201,
      undefined,
    ]);
    expect(await total(p.card)).toBe(1_000 - 220 + 500);
  });

  it('an order under a key 24 hours old (written apart from its batch) that meets a full disk answers 503 too, and books once there is room', async () => {
    const p = await c.profile({ balance: 1_000 });
    const charged = { totalGross: 220, balance: { requestCharge: true } };
    const first = await c.order(orderBody(c, p.card, [['1002', 1]], charged), { key: 'a-day-old' });
    expect(first.statusCode, first.body).toBe(200);
    t.clock.advance(IDEMPOTENCY_TTL_MS + 1);
    const order = orderBody(c, p.card, [['1002', 1]], charged);
    await onAFullDisk(async () => {
      expectToRepeatLater(await c.order(order, { key: 'a-day-old' }));
      expect(await total(p.card)).toBe(780);
    });
    const placed = await c.order(order, { key: 'a-day-old' });
    expect([placed.statusCode, placed.headers['idempotent-replayed']], placed.body).toEqual([200, undefined]);
    expect(await total(p.card)).toBe(560);
  });
});

// Keyed top-ups sent to two server processes at once: test/checkout/concurrency.test.ts, whose two
// processes serve both of its tests across instances.
