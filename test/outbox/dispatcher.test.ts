import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryOutcome, OutboxDispatcher, type OutboxHandler } from '../../src/outbox/dispatcher.js';
import {
  claimDueMessages,
  enqueueOutbox,
  listOutboxMessages,
  retryOutboxMessage,
} from '../../src/outbox/outbox.store.js';
import type { OutboxMessage } from '../../src/outbox/outbox.store.js';
import type { Database } from '../../src/store/db.js';
import { TestClock, databases, openTestDatabase } from '../support/harness.js';

/** A handler that answers from a script of outcomes and counts what it was given. */
class ScriptedHandler implements OutboxHandler {
  readonly seen: OutboxMessage[] = [];
  constructor(
    readonly topic: string,
    private readonly script: (
      message: OutboxMessage,
      signal: AbortSignal,
    ) => DeliveryOutcome | Promise<DeliveryOutcome>,
  ) {}
  async deliver(message: OutboxMessage, signal: AbortSignal): Promise<DeliveryOutcome> {
    this.seen.push(message);
    return this.script(message, signal);
  }
}

const quietLog = { info() {}, warn() {}, error() {} };

describe.each(databases)('outbox and dispatcher on %s', (kind) => {
  let database: Database;
  let drop: () => Promise<void>;
  let merchantId: number;
  const clock = new TestClock(Date.parse('2026-11-24T10:00:00Z'));
  const now = (): Date => new Date(clock.nowMs());

  beforeAll(async () => {
    ({ database, drop } = await openTestDatabase(kind));
    const row = await database.db
      .insertInto('merchants')
      .values({
        service_user_name: 'outbox-shop',
        display_name: 'Outbox Shop',
        currency: 'EUR',
        time_zone: 'Europe/Berlin',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    merchantId = row.id;
  });
  afterAll(async () => drop());

  it('a message exists exactly when the transaction that wrote it committed', async () => {
    await expect(
      database.db.transaction().execute(async (trx) => {
        await enqueueOutbox(trx, { merchantId, topic: 'rolled.back', payload: { n: 1 }, notBefore: now() });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await database.db.transaction().execute(async (trx) => {
      await enqueueOutbox(trx, { merchantId, topic: 'committed', payload: { n: 2 }, notBefore: now() });
    });
    expect(
      await listOutboxMessages(database.db, { merchantId, topic: 'rolled.back', limit: 10 }),
    ).toHaveLength(0);
    const [message] = await listOutboxMessages(database.db, { merchantId, topic: 'committed', limit: 10 });
    expect(message).toMatchObject({ status: 'pending', attempts: 0, payload: { n: 2 } });
  });

  it("a failed send is retried after the schedule's delays and delivered on the fourth attempt, every attempt recorded", async () => {
    const handler = new ScriptedHandler('retried', (m) =>
      m.attempt <= 3
        ? { ok: false, error: `refused ${m.attempt}` }
        : { ok: true, detail: { accepted: true } },
    );
    const dispatcher = new OutboxDispatcher({
      db: database.db,
      clock,
      handlers: [handler],
      retryScheduleMs: [1000, 2000, 4000],
    });
    await enqueueOutbox(database.db, { merchantId, topic: 'retried', payload: {}, notBefore: now() });
    expect(await dispatcher.runOnce()).toBe(1);
    // Not due again before its delay.
    clock.advance(999);
    expect(await dispatcher.runOnce()).toBe(0);
    clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    clock.advance(2000);
    expect(await dispatcher.runOnce()).toBe(1);
    clock.advance(3999);
    expect(await dispatcher.runOnce()).toBe(0);
    clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(handler.seen.map((m) => m.attempt)).toEqual([1, 2, 3, 4]);
    const [message] = await listOutboxMessages(database.db, { merchantId, topic: 'retried', limit: 1 });
    expect(message?.status).toBe('delivered');
    expect(message?.attemptLog.map((a) => [a.attempt, a.ok, a.error])).toEqual([
      [1, false, 'refused 1'],
      [2, false, 'refused 2'],
      [3, false, 'refused 3'],
      [4, true, null],
    ]);
    expect(message?.attemptLog[3]?.detail).toEqual({ accepted: true });
  });

  it('a message is given up when its schedule is used up or the failure is permanent, and a person can retry it once more', async () => {
    const outcomes: DeliveryOutcome[] = [{ ok: false, error: 'gone', permanent: true }, { ok: true }];
    const handler = new ScriptedHandler(
      'permanent',
      () => outcomes.shift() ?? { ok: false, error: 'unexpected' },
    );
    const dispatcher = new OutboxDispatcher({
      db: database.db,
      clock,
      handlers: [handler],
      retryScheduleMs: [1],
    });
    const id = await enqueueOutbox(database.db, {
      merchantId,
      topic: 'permanent',
      payload: {},
      notBefore: now(),
    });
    await dispatcher.runOnce();
    clock.advance(10_000);
    expect(await dispatcher.runOnce()).toBe(0);
    expect(
      (await listOutboxMessages(database.db, { merchantId, topic: 'permanent', limit: 1 }))[0]?.status,
    ).toBe('dead');

    expect(await retryOutboxMessage(database.db, merchantId + 1000, id, now())).toBe('unknown');
    expect(await retryOutboxMessage(database.db, merchantId, id, now(), { topic: 'other' })).toBe('unknown');
    expect(await retryOutboxMessage(database.db, merchantId, id, now())).toBe('retried');
    expect(await dispatcher.runOnce()).toBe(1);
    const [message] = await listOutboxMessages(database.db, { merchantId, topic: 'permanent', limit: 1 });
    expect(message?.status).toBe('delivered');
    expect(message?.attemptLog.map((a) => a.ok)).toEqual([false, true]);
    expect(await retryOutboxMessage(database.db, merchantId, id, now())).toBe('delivered');
  });

  it("a retry asked for while an attempt holds the message is refused: the attempt's outcome comes first", async () => {
    const id = await enqueueOutbox(database.db, { merchantId, topic: 'held', payload: {}, notBefore: now() });
    expect(await claimDueMessages(database.db, ['held'], now(), 30_000, 10)).toHaveLength(1);
    expect(await retryOutboxMessage(database.db, merchantId, id, now())).toBe('in_flight');
    // The lease ran out (the process died): the retry makes it due at once.
    clock.advance(30_000);
    expect(await retryOutboxMessage(database.db, merchantId, id, now())).toBe('retried');
    const [message] = await listOutboxMessages(database.db, { merchantId, topic: 'held', limit: 1 });
    expect(message).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: now() });
  });

  it('the claim of a process that died mid-send runs out and the message is sent after all', async () => {
    await enqueueOutbox(database.db, { merchantId, topic: 'leased', payload: {}, notBefore: now() });
    // The first process claims the message and is killed before it records anything.
    const claimed = await claimDueMessages(database.db, ['leased'], now(), 30_000, 10);
    expect(claimed).toHaveLength(1);
    const handler = new ScriptedHandler('leased', () => ({ ok: true }));
    const restarted = new OutboxDispatcher({ db: database.db, clock, handlers: [handler], leaseMs: 30_000 });
    expect(await restarted.runOnce()).toBe(0);
    clock.advance(30_000);
    expect(await restarted.runOnce()).toBe(1);
    expect(handler.seen.map((m) => m.attempt)).toEqual([2]);
    const [message] = await listOutboxMessages(database.db, { merchantId, topic: 'leased', limit: 1 });
    expect(message).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('a message of a topic this process has no handler for stays pending for a process that has one', async () => {
    await enqueueOutbox(database.db, { merchantId, topic: 'unknown.topic', payload: {}, notBefore: now() });
    const dispatcher = new OutboxDispatcher({
      db: database.db,
      clock,
      handlers: [new ScriptedHandler('other', () => ({ ok: true }))],
    });
    expect(await dispatcher.runOnce()).toBe(0);
    const [message] = await listOutboxMessages(database.db, { merchantId, topic: 'unknown.topic', limit: 1 });
    expect(message).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('several dispatchers on one database share the work and send each message once', async () => {
    const total = 120;
    await database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < total; i++) {
        await enqueueOutbox(trx, { merchantId, topic: 'shared', payload: { i }, notBefore: now() });
      }
    });
    const sent: number[] = [];
    const slowHandler = (): OutboxHandler => ({
      topic: 'shared',
      async deliver(m) {
        await new Promise((r) => setTimeout(r, 2));
        sent.push(m.payload.i as number);
        return { ok: true };
      },
    });
    const dispatchers = [1, 2, 3].map(
      () => new OutboxDispatcher({ db: database.db, clock, handlers: [slowHandler()], batchSize: 8 }),
    );
    const drain = async (d: OutboxDispatcher): Promise<void> => {
      while ((await d.runOnce()) > 0);
    };
    await Promise.all(dispatchers.map(drain));
    expect(sent).toHaveLength(total);
    expect(new Set(sent).size).toBe(total);
    const left = await listOutboxMessages(database.db, {
      merchantId,
      topic: 'shared',
      status: 'pending',
      limit: 1,
    });
    expect(left).toHaveLength(0);
  });

  it('a started dispatcher sends a message soon after it is nudged, and stops cleanly', async () => {
    let delivered: () => void = () => {};
    const arrived = new Promise<void>((r) => (delivered = r));
    const handler = new ScriptedHandler('nudged', () => {
      delivered();
      return { ok: true };
    });
    // An hour between polls: only the nudge can wake it in time.
    const dispatcher = new OutboxDispatcher({
      db: database.db,
      clock,
      handlers: [handler],
      pollMs: 3_600_000,
    });
    dispatcher.start(quietLog);
    await new Promise((r) => setTimeout(r, 50));
    await enqueueOutbox(database.db, { merchantId, topic: 'nudged', payload: {}, notBefore: now() });
    dispatcher.nudge();
    await arrived;
    await dispatcher.stop();
    expect(handler.seen).toHaveLength(1);
  });

  it('a stop cuts off the sends still running after its grace: the attempt is recorded as cut off, due again at once and not given up for it', async () => {
    const id = await enqueueOutbox(database.db, {
      merchantId,
      topic: 'stalled',
      payload: {},
      notBefore: now(),
    });
    let started: () => void = () => {};
    const sending = new Promise<void>((r) => (started = r));
    // A send that ends only when it is told to, as fetch and nodemailer do with the signal.
    const handler = new ScriptedHandler('stalled', (_m, signal) => {
      started();
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve({ ok: false, error: 'This operation was aborted' })),
      );
    });
    // No retry left in the schedule: a failure of the target would give the message up.
    const dispatcher = new OutboxDispatcher({
      db: database.db,
      clock,
      handlers: [handler],
      retryScheduleMs: [],
      stopGraceMs: 50,
    });
    dispatcher.start(quietLog);
    dispatcher.nudge();
    await sending;
    await dispatcher.stop();
    const [message] = await listOutboxMessages(database.db, { merchantId, topic: 'stalled', limit: 1 });
    expect(message).toMatchObject({
      id,
      status: 'pending',
      attempts: 1,
      nextAttemptAt: now(),
      lastError: "cut off by the server's stop: This operation was aborted",
    });
    // The next dispatcher to look sends it.
    const next = new OutboxDispatcher({
      db: database.db,
      clock,
      handlers: [new ScriptedHandler('stalled', () => ({ ok: true }))],
    });
    expect(await next.runOnce()).toBe(1);
  });
});
