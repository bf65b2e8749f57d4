import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/ledger-verify.store.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { twoServers } from '../support/two-servers.js';
import {
  checkoutCall,
  coffeeOrder,
  fundedProfile,
  setupCheckoutHttp,
  signedOrder,
} from '../support/http-checkout.js';
import type { HttpClient } from '../support/http-pos.js';
import { type HttpAnswer } from '../support/http-pos.js';
import {
  type CheckoutClient,
  bookedTopUps,
  expectLedgerSound,
  orderBody,
  setupCheckout,
} from './checkout-support.js';

function tally(answers: { status: number; body: unknown }[]) {
  let ok = 0;
  let insufficient = 0;
  const other: unknown[] = [];
  for (const a of answers) {
    const code = (a.body as { error?: { code?: string } } | null)?.error?.code;
    if (a.status === 200) ok += 1;
    else if (a.status === 422 && code === 'insufficient_balance') insufficient += 1;
    else other.push(a.body);
  }
  return { ok, insufficient, other };
}

describe.each(databases)('checkout concurrency on %s (one hot profile)', (kind) => {
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

  const total = async (card: string) =>
    (await c.call('GET', `/api/v1/profiles/${card}`)).json().balance.totalAmount as number;
  const coffee = (card: string, reservation?: Record<string, unknown>) =>
    orderBody(c, card, [['1004', 1]], {
      totalGross: 100,
      balance: { requestCharge: true, ...(reservation ? { reservation } : {}) },
    });

  it('200 concurrent orders of 1.00 against a balance of 100.00 charge exactly 100, never below zero', async () => {
    const p = await c.profile({ balance: 10_000 });
    const answers = await Promise.all(Array.from({ length: 200 }, () => c.order(coffee(p.card))));
    const r = tally(answers.map((a) => ({ status: a.statusCode, body: a.json() })));
    expect(r.other.slice(0, 3)).toEqual([]);
    expect([r.ok, r.insufficient]).toEqual([100, 100]);
    expect(await total(p.card)).toBe(0);
  });

  it('the same with one reservation of 50.00, half of the orders charging it: exactly 100 charged', async () => {
    const p = await c.profile({ balance: 10_000 });
    const res = await c.call('POST', `/api/v1/profiles/${p.card}/reservations`, {
      amount: 5_000,
      currency: 'EUR',
    });
    const reference = (res.json() as { reference: string }).reference;
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => c.order(coffee(p.card, i % 2 === 0 ? { reference } : undefined))),
    );
    const r = tally(answers.map((a) => ({ status: a.statusCode, body: a.json() })));
    expect(r.other.slice(0, 3)).toEqual([]);
    expect([r.ok, r.insufficient]).toEqual([100, 100]);
    expect(await total(p.card)).toBe(0);
    expect((await c.call('GET', `/api/v1/reservations/${reference}`)).json()).toMatchObject({
      remainingAmount: 0,
      status: 'used',
    });
  });

  it('100 simultaneous requests with one key and one body give one order and one charge', async () => {
    const p = await c.profile({ balance: 1_000 });
    const body = coffee(p.card);
    const answers = await Promise.all(Array.from({ length: 100 }, () => c.order(body, { key: 'one-key' })));
    const done = answers.filter((a) => a.statusCode === 200);
    const busy = answers.filter((a) => a.statusCode === 409);
    expect(done.length + busy.length).toBe(100);
    expect(done.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(done.map((a) => a.body)).size).toBe(1);
    for (const b of busy) expect(b.json().error.code).toBe('idempotency_key_in_flight');
    expect(await total(p.card)).toBe(900);
    const charges = await t.database.db
      .selectFrom('checkout_orders')
      .select('id')
      .where('basket_id', '=', body.basketId as string)
      .execute();
    expect(charges).toHaveLength(1);
  });
});

describe.runIf(databases.includes('postgres'))('checkout across two server processes on PostgreSQL', () => {
  // One pair of processes for both tests (each on a merchant of its own): a start costs some
  // 5 s of CPU (docs/performance.md, "Test suite").
  const two = twoServers('punchcard_co');
  const { clients } = two;
  beforeAll(() => two.start(), 120_000);
  afterAll(() => two.stop());

  it('200 orders of 1.00 against 100.00 (half against a reservation) over two instances: exactly 100 charged; one key, one order', async () => {
    const [first] = clients;
    if (!first) throw new Error('no server');
    const who = await setupCheckoutHttp(first, `two-${randomUUID().slice(0, 8)}`);
    const card = await fundedProfile(first, who, 10_000);
    const plain = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        signedOrder(clients[i % 2] as HttpClient, who, coffeeOrder(who, card, 1)),
      ),
    );
    const r1 = tally(plain);
    expect(r1.other).toEqual([]);
    expect([r1.ok, r1.insufficient]).toEqual([100, 100]);

    const card2 = await fundedProfile(first, who, 10_000);
    const res = await checkoutCall(first, who, 'POST', `/api/v1/profiles/${card2}/reservations`, {
      amount: 5_000,
      currency: 'EUR',
    });
    const reference = (res.body as { reference: string }).reference;
    const reserved = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        signedOrder(
          clients[i % 2] as HttpClient,
          who,
          coffeeOrder(who, card2, 1, i % 2 === 0 ? { reference } : undefined),
        ),
      ),
    );
    const r2 = tally(reserved);
    expect(r2.other).toEqual([]);
    expect([r2.ok, r2.insufficient]).toEqual([100, 100]);

    const card3 = await fundedProfile(first, who, 1_000);
    const body = coffeeOrder(who, card3, 1);
    const same = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        signedOrder(clients[i % 2] as HttpClient, who, body, 'shared-key'),
      ),
    );
    const done = same.filter((a) => a.status === 200);
    expect(done.length + same.filter((a) => a.status === 409).length).toBe(100);
    expect(done.filter((a) => !a.replayed)).toHaveLength(1);
    expect(new Set(done.map((a) => a.text)).size).toBe(1);

    for (const [ref, expected] of [
      [card, 0],
      [card2, 0],
      [card3, 900],
    ] as const) {
      const read: HttpAnswer = await checkoutCall(first, who, 'GET', `/api/v1/profiles/${ref}`);
      expect((read.body as { balance: { totalAmount: number } }).balance.totalAmount).toBe(expected);
    }
    await two.inDatabase(async (db) => {
      expect((await verifyLedger(db)).violations).toEqual([]);
    });
  }, 120_000);

  it('20 identical top-ups sent to two instances at once book once and answer alike', async () => {
    const [first] = clients;
    if (!first) throw new Error('no server');
    const who = await setupCheckoutHttp(first, `idem-${randomUUID().slice(0, 8)}`);
    const card = await fundedProfile(first, who, 0);
    const text = JSON.stringify({ amount: 700, currency: 'EUR' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (clients[i % 2] as HttpClient).raw(
          'POST',
          `/api/v1/profiles/${card}/topUps`,
          {
            authorization: `Token ${who.accessToken}`,
            'content-type': 'application/json; charset=utf-8',
            'idempotency-key': 'two-instances',
          },
          text,
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    const read = await checkoutCall(first, who, 'GET', `/api/v1/profiles/${card}`);
    expect((read.body as { balance: { totalAmount: number } }).balance.totalAmount).toBe(700);
    await two.inDatabase(async (db) => {
      expect(await bookedTopUps(db, card)).toEqual({ transactions: 1, transfers: 1, webhooks: 0 });
      expect((await verifyLedger(db)).violations).toEqual([]);
    });
  }, 120_000);
});
