import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otpHash } from '../../src/cards/profile.service.js';
import { liabilityAccount } from '../../src/orders/balance.store.js';
import type { OrderWrite } from '../../src/orders/order-write.store.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, callerOf, expectLedgerSound, setupCheckout } from './checkout-support.js';

/**
 * The order writer's batches (group commit, migration 0021): orders that arrive in one turn go
 * in one statement, are decided one after the other on each profile, and one order's failure is
 * its own.
 */
describe.each(databases)('checkout orders written in batches on %s', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let base: Omit<
    OrderWrite,
    'profileReference' | 'otpSha256' | 'idempotencyKey' | 'orderId' | 'basketId' | 'requestId'
  >;
  beforeAll(async () => {
    t = await startApp(kind);
    c = await setupCheckout(t);
    const caller = await callerOf(t, c);
    const deps = t.app.services.checkout;
    base = {
      ...caller,
      menu: null,
      requestSha256: 'a'.repeat(64),
      nowMs: t.clock.nowMs(),
      keyTtlMs: 3_600_000,
      receiptId: '',
      currency: 'EUR',
      totalGrossMinor: 100,
      charge: true,
      pricedJson: '{}',
      liabilityAccountId: await liabilityAccount(deps, caller.merchantId, 'EUR'),
      transactionId: '',
      reservation: null,
      answerHead: '{"totalGross":100',
    };
  });
  afterAll(async () => {
    await expectLedgerSound(t);
    await t.close();
  });

  const order = (card: string, extra: Partial<OrderWrite> = {}): OrderWrite => ({
    ...base,
    profileReference: card,
    otpSha256: otpHash(card),
    idempotencyKey: randomUUID(),
    requestId: `req_${randomUUID().replace(/-/g, '')}`,
    orderId: `ord_${randomUUID().replace(/-/g, '')}`,
    basketId: randomUUID(),
    receiptId: randomUUID().replace(/-/g, ''),
    transactionId: `btx_${randomUUID().replace(/-/g, '')}`,
    ...extra,
  });
  const totalOf = async (card: string) =>
    (await c.call('GET', `/api/v1/profiles/${card}`)).json().balance.totalAmount as number;

  it('orders of one profile in one batch are decided one after the other on its balance', async () => {
    const p = await c.profile({ balance: 250 });
    const writer = t.app.services.checkout.orders;
    const orders = [1, 2, 3].map(() => order(p.card));
    const outcomes = await Promise.all(orders.map((o) => writer.place(o)));
    expect(outcomes.map((o) => ('status' in o ? o.status : o.outcome))).toEqual([200, 200, 422]);
    expect(outcomes.map((o) => ('body' in o ? o.body : ''))).toEqual([
      '{"totalGross":100,"balance":{"oldAmount":250,"newAmount":150,"currency":"EUR"},"status":"completed"}',
      '{"totalGross":100,"balance":{"oldAmount":150,"newAmount":50,"currency":"EUR"},"status":"completed"}',
      expect.stringContaining('insufficient_balance'),
    ]);
    expect(await totalOf(p.card)).toBe(50);
    // The refusal names its request, in the answer and in the key's stored answer alike.
    const refused = outcomes[2];
    const body = refused && 'body' in refused ? refused.body : '';
    expect(JSON.parse(body)).toEqual({
      error: { code: 'insufficient_balance', message: expect.any(String), requestId: orders[2]?.requestId },
    });
    const stored = await t.database.db
      .selectFrom('checkout_idempotency_keys')
      .select('response_body')
      .where('key', '=', orders[2]?.idempotencyKey ?? '')
      .executeTakeFirst();
    expect(stored?.response_body).toBe(body);
  });

  it('the orders of one batch keep their stored pricing and answer byte for byte, whatever the texts hold', async () => {
    const p = await c.profile({ balance: 1_000 });
    const writer = t.app.services.checkout.orders;
    // JSON texts as the server writes them: quotes, backslashes, an escaped U+001E (the batch's
    // separator, which JSON text never holds raw), characters outside ASCII.
    const texts = [
      [
        '{"note":"a \\"quoted\\" \\\\ back\\u001e, {braces}, NULL, ü € 😀"}',
        '{"totalGross":100,"x":"\\u001e"',
      ],
      ['{"positions":[]}', '{"totalGross":100,"basketId":"ü \\"€\\""'],
      ['{"a":{"b":[1,2,{"c":"\\\\"}]}}', '{"totalGross":100'],
    ] as const;
    const orders = texts.map(([pricedJson, answerHead]) => order(p.card, { pricedJson, answerHead }));
    const outcomes = await Promise.all(orders.map((o) => writer.place(o)));
    expect(outcomes.map((o) => ('body' in o ? o.body : o.outcome))).toEqual(
      texts.map(
        ([, head], i) =>
          `${head},"balance":{"oldAmount":${1_000 - 100 * i},"newAmount":${900 - 100 * i},"currency":"EUR"},"status":"completed"}`,
      ),
    );
    const stored = await t.database.db
      .selectFrom('checkout_orders')
      .select(['id', sql<string>`priced::text`.as('priced')])
      .where(
        'id',
        'in',
        orders.map((o) => o.orderId),
      )
      .execute();
    const byId = new Map(stored.map((r) => [r.id, r.priced]));
    expect(orders.map((o) => byId.get(o.orderId))).toEqual(texts.map(([priced]) => priced));
  });

  it('one order that fails in its batch fails alone: the others of the batch are booked', async () => {
    const a = await c.profile({ balance: 1_000 });
    const b = await c.profile({ balance: 1_000 });
    const writer = t.app.services.checkout.orders;
    // A receipt id the receipts table refuses: that order's write fails, and only it.
    const results = await Promise.allSettled([
      writer.place(order(a.card)),
      writer.place(order(b.card, { receiptId: 'not a receipt id' })),
      writer.place(order(a.card)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect([await totalOf(a.card), await totalOf(b.card)]).toEqual([800, 1_000]);
  });

  it('orders against a reservation in one batch: each sees what the orders before it left reserved', async () => {
    const p = await c.profile({ balance: 1_000 });
    const made = await c.call('POST', `/api/v1/profiles/${p.card}/reservations`, {
      amount: 500,
      currency: 'EUR',
      expiresInSeconds: 3_600,
    });
    expect(made.statusCode).toBe(201);
    const reservation = { reference: made.json().reference as string, cancelRemainingAmount: true };
    const writer = t.app.services.checkout.orders;
    // The first takes 3.00 of the reservation and cancels the rest: the other two may use all 7.00 left.
    const outcomes = await Promise.all([
      writer.place(order(p.card, { totalGrossMinor: 300, reservation })),
      writer.place(order(p.card, { totalGrossMinor: 700 })),
      writer.place(order(p.card, { totalGrossMinor: 100 })),
    ]);
    expect(outcomes.map((o) => ('status' in o ? o.status : o.outcome))).toEqual([200, 200, 422]);
    expect(outcomes.map((o) => ('body' in o ? o.body : ''))).toEqual([
      '{"totalGross":100,"balance":{"oldAmount":1000,"newAmount":700,"currency":"EUR","reservation":' +
        '{"oldAmountExcludingReservation":500,"newAmountExcludingReservation":700,' +
        '"reservedAmountRemaining":0,"reservedAmountUsed":300,"unreservedAmountUsed":0}},"status":"completed"}',
      '{"totalGross":100,"balance":{"oldAmount":700,"newAmount":0,"currency":"EUR"},"status":"completed"}',
      expect.stringContaining('insufficient_balance'),
    ]);
    expect(await totalOf(p.card)).toBe(0);
  });

  it('a one-time password in one batch pays once: the order after it that names it is refused', async () => {
    const p = await c.profile({ balance: 1_000 });
    const otp = await c.otp(p.id);
    const writer = t.app.services.checkout.orders;
    const outcomes = await Promise.all([writer.place(order(otp)), writer.place(order(otp))]);
    expect(outcomes.map((o) => ('status' in o ? o.status : o.outcome))).toEqual([200, 422]);
    const second = outcomes[1];
    expect(second && 'body' in second ? second.body : '').toContain('profile_not_found');
    expect(await totalOf(p.card)).toBe(900);
  });

  it('an order refused in a batch gives its basketId back: the order after it with that basketId is booked', async () => {
    const poor = await c.profile({ balance: 50 });
    const rich = await c.profile({ balance: 1_000 });
    const basketId = randomUUID();
    const writer = t.app.services.checkout.orders;
    const outcomes = await Promise.all([
      writer.place(order(poor.card, { basketId })),
      writer.place(order(rich.card, { basketId })),
      writer.place(order(rich.card, { basketId })),
    ]);
    expect(outcomes.map((o) => ('status' in o ? o.status : o.outcome))).toEqual([422, 200, 409]);
    expect([await totalOf(poor.card), await totalOf(rich.card)]).toEqual([50, 900]);
    const rows = await t.database.db
      .selectFrom('checkout_orders')
      .select(['profile_id'])
      .where('basket_id', '=', basketId)
      .execute();
    expect(rows.map((r) => Number(r.profile_id))).toEqual([rich.id]);
  });

  // On the app's clock, which the writer reads the key's expiry by (not the database's).
  const claimInFlight = (db: TestApp['database']['db'], key: string) => {
    const now = new Date(t.clock.nowMs());
    return sql`INSERT INTO checkout_idempotency_keys (client_id, key, request_sha256, status, created_at, expires_at)
        VALUES (${base.clientId}, ${key}, ${base.requestSha256}, 'in_flight', ${now}, ${now}::timestamptz + interval '1 hour')`.execute(
      db,
    );
  };

  it('an Idempotency-Key being processed by another request answers in flight; the rest of the batch is booked', async () => {
    const a = await c.profile({ balance: 1_000 });
    const key = randomUUID();
    await claimInFlight(t.database.db, key);
    const writer = t.app.services.checkout.orders;
    const outcomes = await Promise.all([
      writer.place(order(a.card)),
      writer.place(order(a.card, { idempotencyKey: key })),
    ]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['placed', 'in_flight']);
    expect(await totalOf(a.card)).toBe(900);
  });

  it('the same Idempotency-Key twice in one batch books once and replays the first answer', async () => {
    const a = await c.profile({ balance: 1_000 });
    const key = randomUUID();
    const writer = t.app.services.checkout.orders;
    const [first, second] = await Promise.all([
      writer.place(order(a.card, { idempotencyKey: key })),
      writer.place(order(a.card, { idempotencyKey: key })),
    ]);
    expect([first.outcome, second.outcome]).toEqual(['placed', 'replay']);
    expect('body' in second ? second.body : '').toBe('body' in first ? first.body : 'none');
    expect(await totalOf(a.card)).toBe(900);
  });

  /**
   * The sessions of this database waiting for a lock, polled until `until` holds for them (a
   * moment seen, not a sleep guessed: on a busy machine a timer fires late).
   */
  const lockWaiters = async (until: (pids: readonly number[]) => boolean): Promise<readonly number[]> => {
    for (let attempt = 0; attempt < 1_000; attempt++) {
      const rows = await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(t.database.db);
      const pids = rows.rows.map((r) => r.pid);
      if (until(pids)) return pids;
      await sleep(5);
    }
    throw new Error('no session came to wait for the lock');
  };

  /**
   * Another request's transaction holds the key, not yet committed: the batch does not see it when
   * it looks the keys up, and its insert of the key waits for that transaction, which commits at
   * the moment `commitWhen` picks.
   */
  const keyHeldWhileWritten = async (
    commitWhen: (firstWaiter: number, pids: readonly number[]) => boolean,
  ): Promise<string[]> => {
    const a = await c.profile({ balance: 1_000 });
    const key = randomUUID();
    const writer = t.app.services.checkout.orders;
    const outcomes = await t.database.db.connection().execute(async (other) => {
      await sql`BEGIN`.execute(other);
      await claimInFlight(other, key);
      const placed = Promise.all([
        writer.place(order(a.card)),
        writer.place(order(a.card, { idempotencyKey: key })),
      ]);
      const [first] = await lockWaiters((pids) => pids.length > 0);
      if (first === undefined) throw new Error('no session waits');
      await lockWaiters((pids) => commitWhen(first, pids));
      await sql`COMMIT`.execute(other);
      return (await placed).map((o) => o.outcome);
    });
    expect(await totalOf(a.card)).toBe(900);
    return outcomes;
  };

  if (kind === 'postgres')
    it('a key stored by another request while the batch is written undoes the batch; its orders are written again one by one', async () => {
      // Committed while the batch waits for the key: its insert fails on the key stored.
      expect(await keyHeldWhileWritten(() => true)).toEqual(['placed', 'in_flight']);
    });

  if (kind === 'postgres')
    it('a key held past what a batch may wait for a lock: its orders are written alone, the other order is placed and the key answers in flight', async () => {
      // Committed once the batch gave up (BATCH_LOCK_WAIT_MS) and its orders, written alone on
      // other connections, wait in their turn. The order beside the key must not find its own key
      // still locked by the batch that gave up ("in flight" where nothing else had it).
      expect(await keyHeldWhileWritten((first, pids) => pids.some((pid) => pid !== first))).toEqual([
        'placed',
        'in_flight',
      ]);
    });
});
