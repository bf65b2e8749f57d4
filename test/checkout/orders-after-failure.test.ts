import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { afterRun } from '../../bench/lib/money-check.js';
import { BENCH_ADMIN_TOKEN, type RunningServer } from '../../bench/lib/server.js';
import { serviceDatabase, startService } from '../support/child-service.js';
import {
  type CheckoutIdentity,
  checkoutCall,
  coffeeOrder,
  fundedProfile,
  setupCheckoutHttp,
  signedOrder,
} from '../support/http-checkout.js';
import { freezingProxy } from '../support/freezing-proxy.js';
import { HttpClient } from '../support/http-pos.js';
import { type DatabaseKind, databases } from '../support/harness.js';

/*
 * Orders paid from the balance while the service fails under them, retried as the checkout
 * interface asks a client to: the same body under the same Idempotency-Key. Whatever the failure
 * cut off, each order ends booked once or refused, and what the booked orders charged is exactly
 * what the balances lost (docs/decisions.md, "Idempotency"; "A database connection lost while in
 * use").
 */

const WORKERS = 8;
/** Five profiles that never run dry, and one that does, so that refusals are among the answers. */
const RICH = 5;
const RICH_FUNDS = 1_000_000;
const POOR_FUNDS = 300;

interface SentOrder {
  readonly key: string;
  readonly body: Record<string, unknown>;
  /** The last answer: an HTTP status, or null while the order has none (cut off in flight). */
  status: number | null;
  text: string;
  /** The last answer's Retry-After, when it had one. */
  retryAfter?: string | undefined;
}

/** An order not sent yet, under a key of its own. */
function unsent(body: Record<string, unknown>): SentOrder {
  return { key: randomUUID(), body, status: null, text: '' };
}

/** Sends the order (its body under its Idempotency-Key) and keeps the answer with it. */
async function send(client: HttpClient, who: CheckoutIdentity, order: SentOrder) {
  const answer = await signedOrder(client, who, order.body, order.key);
  order.status = answer.status;
  order.text = answer.text;
  order.retryAfter = answer.retryAfter;
  return answer;
}

async function funded(client: HttpClient, who: CheckoutIdentity): Promise<string[]> {
  const cards: string[] = [];
  for (let i = 0; i < RICH; i++) cards.push(await fundedProfile(client, who, RICH_FUNDS));
  cards.push(await fundedProfile(client, who, POOR_FUNDS));
  return cards;
}

/**
 * WORKERS clients sending orders of one to three coffees (1.00 each) one after the other until
 * `stop()` says so or a request gets no answer; each answer is kept with its order.
 */
function placeOrders(
  client: HttpClient,
  who: CheckoutIdentity,
  cards: readonly string[],
  sent: SentOrder[],
  stop: () => boolean,
): Promise<void> {
  const worker = async (w: number): Promise<void> => {
    for (let i = 0; !stop(); i++) {
      const order = unsent(coffeeOrder(who, cards[(w + i) % cards.length] ?? '', 1 + ((w + i) % 3)));
      sent.push(order);
      try {
        await send(client, who, order);
      } catch {
        return; // no answer came: this order stays without one
      }
    }
  };
  return Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w))).then(() => undefined);
}

/**
 * An order's retry, the same body under the same Idempotency-Key: booked, or refused for its balance.
 * Any other answer is shown with what the service logged for that request (the database's error
 * behind a 503, say).
 */
async function retry(
  client: HttpClient,
  who: CheckoutIdentity,
  order: SentOrder,
  server: RunningServer,
): Promise<void> {
  const answer = await send(client, who, order);
  expect([200, 422], `${answer.text}\n${loggedFor(server, answer.requestId)}`).toContain(answer.status);
  if (answer.status === 422) expect(answer.text).toContain('insufficient_balance');
}

/** The service's log lines naming a request (its Request-Id). */
function loggedFor(server: RunningServer, requestId: string | undefined): string {
  if (requestId === undefined) return '';
  return server.lines.filter((line) => line.includes(requestId)).join('\n');
}

/**
 * The orders the database holds against those answered as placed, and the money: what they charged,
 * what the profiles' balances lost, and the ledger's own check. The service must be stopped (the
 * embedded database has one process).
 */
function booked(env: Record<string, string>) {
  return afterRun(env, async (db) => {
    const orders = await db.selectFrom('checkout_orders').select(['basket_id', 'charged_minor']).execute();
    const accounts = await db
      .selectFrom('profiles as p')
      .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
      .select('a.balance_minor')
      .execute();
    const held = accounts.reduce((sum, a) => sum + Number(a.balance_minor), 0);
    return {
      basketIds: orders.map((o) => o.basket_id).sort(),
      charged: orders.reduce((sum, o) => sum + Number(o.charged_minor), 0),
      lost: RICH * RICH_FUNDS + POOR_FUNDS - held,
    };
  });
}

/**
 * The database holds the orders answered as placed, each once, and no other; the balances lost
 * what they charged; the ledger's own check finds nothing.
 */
async function expectBookedOnce(env: Record<string, string>, sent: readonly SentOrder[]): Promise<void> {
  const orders = sent.filter((o) => o.status === 200);
  const charged = orders.reduce((sum, o) => sum + Number(o.body.totalGross), 0);
  const found = await booked(env);
  expect(found.ledgerViolations).toBe(0);
  expect(found.basketIds).toEqual(orders.map((o) => String(o.body.basketId)).sort());
  expect(found.charged).toBe(charged);
  expect(found.lost).toBe(charged);
}

/**
 * A session of someone else's (an operator's open transaction, say) holding the account of the
 * profile a card names, until the caller's ROLLBACK; the session ends after the file.
 */
async function holdProfileAccount(
  env: Record<string, string>,
  card: string,
  cleanups: (() => Promise<void>)[],
): Promise<pg.Client> {
  const holder = new pg.Client({ connectionString: env.DATABASE_URL });
  await holder.connect();
  cleanups.push(() => holder.end());
  await holder.query('BEGIN');
  const held = await holder.query(
    `SELECT a.id FROM cards c JOIN profiles p ON p.id = c.profile_id
       JOIN ledger_accounts a ON a.id = p.account_id WHERE c.token_id = $1 FOR UPDATE OF a`,
    [card],
  );
  expect(held.rowCount).toBe(1);
  return holder;
}

/**
 * A service of its own on a database of its own, its checkout client, and the profiles the orders
 * are paid from; each is removed after the file.
 */
async function orderingService(
  kind: DatabaseKind,
  label: string,
  logLevel: string,
  cleanups: (() => Promise<void>)[],
  settings: Record<string, string> = {},
) {
  const database = await serviceDatabase(kind, label);
  cleanups.push(() => database.drop());
  const env: Record<string, string> = { ...database.env, LOG_LEVEL: logLevel, ...settings };
  const server = await startService(env);
  cleanups.push(() => server.kill());
  const client = new HttpClient(server.baseUrl, BENCH_ADMIN_TOKEN, WORKERS);
  const who = await setupCheckoutHttp(client, `${label}-${kind}`);
  return { env, server, client, who, cards: await funded(client, who) };
}

describe.each(databases)('checkout orders when the service fails under them on %s', (kind) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('a service killed amid orders: every order retried under its Idempotency-Key is booked once or refused, and the balances lost what the booked orders charged', async () => {
    const started = await orderingService(kind, 'orders-crash', 'warn', cleanups);
    const { env, who, cards } = started;
    let server: RunningServer = started.server;
    let client = started.client;

    const sent: SentOrder[] = [];
    let killed = false;
    const load = placeOrders(client, who, cards, sent, () => killed);
    while (sent.filter((o) => o.status === 200).length < 200) await new Promise((r) => setTimeout(r, 10));
    await server.kill('SIGKILL');
    killed = true;
    await load;
    await client.close().catch(() => undefined);
    const cutOff = sent.filter((o) => o.status === null);
    // The kill came with orders on the wire: their clients cannot know whether they were booked.
    expect(cutOff.length).toBeGreaterThan(0);
    const answeredBefore = sent.filter((o) => o.status === 200).map((o) => ({ ...o }));

    server = await startService(env);
    const restarted = server;
    cleanups.push(() => restarted.kill());
    client = new HttpClient(server.baseUrl, BENCH_ADMIN_TOKEN, WORKERS);
    for (const order of cutOff) await retry(client, who, order, server);
    // An order answered before the kill is answered the same after it, byte for byte, as a replay.
    for (const order of answeredBefore.slice(-20)) {
      const answer = await signedOrder(client, who, order.body, order.key);
      expect(answer).toMatchObject({ status: 200, replayed: true, text: order.text });
    }
    await client.close();
    await server.kill('SIGTERM');
    await expectBookedOnce(env, sent);
  }, 120_000);

  it('a service stopped (SIGTERM) amid orders finishes the orders in flight and exits with 0, not at its 30 s limit; every order it booked was answered', async () => {
    const { env, server, client, who, cards } = await orderingService(kind, 'orders-stop', 'warn', cleanups);

    const sent: SentOrder[] = [];
    let stopped = false;
    const load = placeOrders(client, who, cards, sent, () => stopped);
    while (sent.filter((o) => o.status === 200).length < 200) await new Promise((r) => setTimeout(r, 10));
    const exited = new Promise<number | null>((r) => server.child.once('exit', (code) => r(code)));
    server.child.kill('SIGTERM');
    // Past its 30 s, the service gives up waiting and exits with 1.
    expect(await exited).toBe(0);
    stopped = true;
    await load;
    await client.close().catch(() => undefined);
    for (const order of sent.filter((o) => o.status !== null)) {
      expect([200, 422], order.text).toContain(order.status);
    }
    await expectBookedOnce(env, sent);
  }, 120_000);
});

describe.each(databases.filter((k) => k === 'postgres'))(
  'checkout orders when PostgreSQL breaks the service connections under them on %s',
  (kind) => {
    const cleanups: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const c of cleanups.reverse()) await c();
    });

    it('each order is answered placed, refused or service_unavailable, and retried under its Idempotency-Key it is booked once or refused', async () => {
      const { env, server, client, who, cards } = await orderingService(
        kind,
        'orders-broken',
        'error',
        cleanups,
      );

      // Every 100 ms PostgreSQL ends every connection the service holds, ten times over, and on
      // until an order has been answered service_unavailable (at most 100 times): the service writes
      // a broken batch's orders again alone, so most breaks fail no order (0 to 4 of some 750 orders
      // answered 503 in ten breaks, none in a third of the runs).
      const url = process.env.TEST_DATABASE_URL ?? '';
      const name = new URL(env.DATABASE_URL ?? '').pathname.slice(1);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      let ended = 0;
      let stopped = false;
      const sent: SentOrder[] = [];
      const load = placeOrders(client, who, cards, sent, () => stopped);
      const failedOne = () => sent.some((o) => o.status === 503);
      try {
        while (ended < 10 || (!failedOne() && ended < 100)) {
          await new Promise((r) => setTimeout(r, 100));
          await admin.query(
            'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
            [name],
          );
          ended += 1;
        }
        stopped = true;
        await load;
      } finally {
        stopped = true;
        await admin.end();
      }

      const unavailable = sent.filter((o) => o.status === 503);
      for (const order of sent) {
        expect([200, 422, 503], order.text).toContain(order.status);
        if (order.status === 422) expect(order.text).toContain('insufficient_balance');
        if (order.status === 503) expect(order.text).toContain('service_unavailable');
      }
      // The broken connections failed orders on their way, and the service told their clients to
      // repeat them after Retry-After's seconds. The client waits as told: a connection PostgreSQL
      // ended can look open for some 100 ms more (its end heard only then), and a repeat sent
      // within that time may meet it and be answered 503 again, as the answer warned.
      expect(unavailable.length).toBeGreaterThan(0);
      const waits = unavailable.map((o) => Number(o.retryAfter));
      for (const seconds of waits) expect(seconds).toBeGreaterThan(0);
      await sleep(1000 * Math.max(...waits));
      for (const order of unavailable) await retry(client, who, order, server);
      await client.close();
      await server.kill('SIGTERM');
      await expectBookedOnce(env, sent);
    }, 120_000);

    it("a profile's balance locked by another session for long holds up only its own order: the others are placed meanwhile, its own answers service_unavailable and is booked once when retried under its Idempotency-Key", async () => {
      const { env, server, client, who, cards } = await orderingService(
        kind,
        'orders-locked',
        'warn',
        cleanups,
      );
      const [lockedCard, ...others] = cards;
      const holder = await holdProfileAccount(env, lockedCard ?? '', cleanups);

      const blocked = unsent(coffeeOrder(who, lockedCard ?? '', 1));
      const blockedAnswer = signedOrder(client, who, blocked.body, blocked.key);
      // The other profiles' orders, sent after it and beside it, are all placed while the lock
      // is still held: before, every order waited behind the one that waited for the lock.
      const sent: SentOrder[] = [blocked];
      await Promise.all(
        Array.from({ length: 4 }, async (_, w) => {
          for (let i = 0; i < 10; i++) {
            const order = unsent(coffeeOrder(who, others[(w + i) % (others.length - 1)] ?? '', 1));
            sent.push(order);
            const answer = await send(client, who, order);
            expect(answer.status, answer.text).toBe(200);
          }
        }),
      );
      const answer = await blockedAnswer;
      expect(answer.status, answer.text).toBe(503);
      expect(answer.text).toContain('service_unavailable');
      blocked.status = 503;

      await holder.query('ROLLBACK');
      await retry(client, who, blocked, server);
      expect(blocked.status).toBe(200);
      await client.close();
      await server.kill('SIGTERM');
      await expectBookedOnce(env, sent);
    }, 120_000);

    it("an order sent while the database stops answering (a network that drops every packet) answers service_unavailable with Retry-After within the statement's limit and 5 s, and repeated under its Idempotency-Key once the network is back it is booked once", async () => {
      const database = await serviceDatabase(kind, 'orders-silent');
      cleanups.push(() => database.drop());
      const proxy = await freezingProxy(database.env.DATABASE_URL ?? '');
      cleanups.push(() => proxy.close());
      const server = await startService({
        ...database.env,
        DATABASE_URL: proxy.url,
        LOG_LEVEL: 'fatal',
        DATABASE_STATEMENT_TIMEOUT_MS: '1000',
      });
      cleanups.push(() => server.kill());
      const client = new HttpClient(server.baseUrl, BENCH_ADMIN_TOKEN, WORKERS);
      const who = await setupCheckoutHttp(client, `orders-silent-${kind}`);
      const cards = await funded(client, who);
      const sent = [unsent(coffeeOrder(who, cards[0] ?? '', 1)), unsent(coffeeOrder(who, cards[0] ?? '', 1))];
      const [before, silent] = sent as [SentOrder, SentOrder];
      expect((await send(client, who, before)).status).toBe(200);

      proxy.freeze();
      // Without a limit for its answer the order waits as long as the network drops everything,
      // here until the guard.
      const answer = await Promise.race([send(client, who, silent), sleep(30_000).then(() => null)]);
      expect(answer?.status, answer?.text).toBe(503);
      expect(answer?.text).toContain('service_unavailable');
      expect(Number(answer?.retryAfter)).toBeGreaterThan(0);

      proxy.thaw();
      // Repeated after Retry-After under its Idempotency-Key until it is answered.
      for (let i = 0; i < 5 && silent.status !== 200; i++) {
        await sleep(Number(silent.retryAfter ?? 1) * 1000);
        await send(client, who, silent);
      }
      expect(silent.status, silent.text).toBe(200);
      const again = await signedOrder(client, who, silent.body, silent.key);
      expect(again).toMatchObject({ status: 200, replayed: true, text: silent.text });
      await client.close();
      await server.kill('SIGTERM');
      await expectBookedOnce(database.env, sent);
    }, 120_000);

    it("a top-up of a profile whose balance another session holds waits no longer than the statement's limit: it answers service_unavailable with Retry-After, nothing written, and repeated under its Idempotency-Key once the row is free it credits once", async () => {
      const { env, server, client, who, cards } = await orderingService(
        kind,
        'top-up-limit',
        'error',
        cleanups,
        {
          DATABASE_STATEMENT_TIMEOUT_MS: '1000',
        },
      );
      // The profile holding 3.00, far under any limit of its top-ups.
      const card = cards[cards.length - 1] ?? '';
      const balance = async () => {
        const res = await checkoutCall(client, who, 'GET', `/api/v1/profiles/${card}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return (res.body as { balance: { totalAmount: number } }).balance.totalAmount;
      };
      const before = await balance();
      const key = randomUUID();
      const topUp = () =>
        client.raw(
          'POST',
          `/api/v1/profiles/${card}/topUps`,
          {
            authorization: `Token ${who.accessToken}`,
            'idempotency-key': key,
            'content-type': 'application/json',
          },
          JSON.stringify({ amount: 250, currency: 'EUR' }),
        );
      const holder = await holdProfileAccount(env, card, cleanups);
      try {
        // Without a limit the top-up waits for as long as the row is held, here until the guard.
        const answer = await Promise.race([topUp(), sleep(20_000).then(() => null)]);
        expect(answer?.status, answer?.text).toBe(503);
        expect(answer?.text).toContain('service_unavailable');
        expect(Number(answer?.headers['retry-after'])).toBeGreaterThan(0);
      } finally {
        await holder.query('ROLLBACK');
      }
      expect(await balance()).toBe(before);
      const again = await topUp();
      expect(again.status, again.text).toBe(201);
      const repeated = await topUp();
      expect(repeated.status, repeated.text).toBe(201);
      expect(repeated.text).toBe(again.text);
      expect(await balance()).toBe(before + 250);
      await client.close();
      await server.kill('SIGTERM');
    }, 120_000);
  },
);
