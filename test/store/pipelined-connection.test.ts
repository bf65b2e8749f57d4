import { randomUUID } from 'node:crypto';
import { type AddressInfo, type Socket, createServer } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/store/db.js';
import { isDatabaseSilent, isDatabaseUnavailable } from '../../src/shared/database-unavailable.js';
import { PipelinedConnection } from '../../src/store/pipelined-connection.js';
import { cuttingProxy } from '../support/cutting-proxy.js';
import { freezingProxy } from '../support/freezing-proxy.js';
import { databases, openTestDatabase } from '../support/harness.js';

/** The answer limit of the tests of a database that falls silent. */
const ANSWER_LIMIT_MS = 2_000;

/**
 * The order writer's connection of its own (docs/decisions.md, "Orders in one statement": the
 * pipeline): statements sent one behind the other without waiting for the answers run in the
 * order sent, each its own transaction, one that fails failing alone.
 */
describe.each(databases)('a pipelined connection on %s', (kind) => {
  let fresh: { database: Database; drop(): Promise<void> };
  let pipeline: PipelinedConnection | null;
  beforeAll(async () => {
    fresh = await openTestDatabase(kind);
    pipeline = fresh.database.pipeline();
  });
  afterAll(async () => {
    await fresh.drop();
  });

  /** The pipeline of PostgreSQL; the embedded database has none. */
  const open = (): PipelinedConnection => {
    if (!pipeline) throw new Error('no pipelined connection');
    return pipeline;
  };

  if (kind === 'pglite') {
    it('the embedded database has none: its one connection runs one statement at a time', () => {
      expect(pipeline).toBeNull();
    });
    return;
  }

  it('statements sent one behind the other are answered in order, and one that fails fails alone', async () => {
    const p = open();
    const first = p.query<{ n: number }>('probe_n', 'SELECT $1::int AS n', [1]);
    const failing = p.query<{ n: number }>('probe_div', 'SELECT 1 / $1::int AS n', [0]);
    const third = p.query<{ n: number }>('probe_n', 'SELECT $1::int AS n', [3]);
    await expect(failing).rejects.toThrow(/division by zero/);
    expect(await first).toEqual([{ n: 1 }]);
    expect(await third).toEqual([{ n: 3 }]);
  });

  it('a statement that fails is answered after its transaction has ended: another session finds its locks free', async () => {
    const p = open();
    // The server reports the error before it ends the statement's transaction; the locks it held
    // (here 3,000 advisory keys, which take a while to give back) must be free when the failure
    // is answered, or a write repeated at once on another connection finds them held. Answered
    // at the error, about one round in five found some of them still held.
    for (let round = 0; round < 25; round++) {
      const failing = p.query(
        'probe_locks_then_fail',
        'SELECT count(pg_advisory_xact_lock(20000000 + g)) / $1::int AS n FROM generate_series(1, 3000) g',
        [0],
      );
      await expect(failing).rejects.toThrow(/division by zero/);
      const free = await sql<{ free: boolean }>`
        SELECT bool_and(pg_try_advisory_xact_lock(20000000 + g)) AS free FROM generate_series(1, 3000) g`.execute(
        fresh.database.db,
      );
      expect(free.rows).toEqual([{ free: true }]);
    }
  });

  it('a statement sent behind another starts after the one before has committed', async () => {
    const p = open();
    const table = `pipeline_probe_${randomUUID().replace(/-/g, '')}`;
    const create = p.query(`create_${table}`, `CREATE TABLE ${table} (n integer)`, []);
    const insert = p.query(`insert_${table}`, `INSERT INTO ${table} VALUES ($1)`, [7]);
    await Promise.all([create, insert]);
    const rows = await sql<{ n: number }>`SELECT n FROM ${sql.table(table)}`.execute(fresh.database.db);
    expect(rows.rows).toEqual([{ n: 7 }]);
    await sql`DROP TABLE ${sql.table(table)}`.execute(fresh.database.db);
  });

  it('a connection the server breaks fails what was sent on it; the next statement opens a new one', async () => {
    const p = open();
    const pidOf = async () =>
      (await p.query<{ pid: number }>('probe_pid', 'SELECT pg_backend_pid() AS pid', []))[0]?.pid;
    const before = await pidOf();
    expect(before).toBeTypeOf('number');
    const behind = p.query('probe_sleep', 'SELECT pg_sleep(5)', []);
    // Expected from the start: the statement may fail before the terminating statement's own answer.
    const behindFails = expect(behind).rejects.toThrow();
    await sql`SELECT pg_terminate_backend(${before})`.execute(fresh.database.db);
    await behindFails;
    let after: number | undefined;
    for (let attempt = 0; attempt < 20 && after === undefined; attempt++) {
      after = await pidOf().catch(() => undefined);
      if (after === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(after).toBeTypeOf('number');
    expect(after).not.toBe(before);
  });

  it('a connection that does not open within its limit fails its statement as the database unreachable (SQLSTATE 08001, a 503), not as a fault of the request', async () => {
    // A server that takes the connection and never answers, as a database behind a cut network.
    const taken = new Set<Socket>();
    const silent = createServer((socket) => taken.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const unanswered = new PipelinedConnection(`postgres://postgres@127.0.0.1:${port}/test`, {
      connectLimitMs: 200,
    });
    try {
      const failure: unknown = await unanswered
        .query('probe_n', 'SELECT 1 AS n', [])
        .catch((err: unknown) => err);
      expect(failure).toMatchObject({ code: '08001' });
      expect(isDatabaseUnavailable(failure)).toBe(true);
      expect(isDatabaseSilent(failure)).toBe(true);
    } finally {
      await unanswered.close();
      for (const socket of taken) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a connection ended while it is being opened fails its statement as a connection cut (SQLSTATE 08006, a 503 its writer writes again), not as a silent database; the next statement opens a new one', async () => {
    // The server, a restart or the network ends the first connection as it sends its first setting.
    const proxy = await cuttingProxy(process.env.TEST_DATABASE_URL ?? '', 'SET lock_timeout', 1);
    const cut = new PipelinedConnection(proxy.url);
    try {
      const failure: unknown = await cut
        .query('probe_n', 'SELECT $1::int AS n', [1])
        .catch((err: unknown) => err);
      expect(proxy.cut()).toBe(1);
      expect(failure).toMatchObject({ code: '08006' });
      expect(isDatabaseUnavailable(failure)).toBe(true);
      expect(isDatabaseSilent(failure)).toBe(false);
      expect(await cut.query('probe_n', 'SELECT $1::int AS n', [2])).toEqual([{ n: 2 }]);
    } finally {
      await cut.close();
      await proxy.close();
    }
  });

  it("a statement not answered within the connection's limit fails as a silent database (a 503), with the statements sent behind it, and the next one opens a new connection", async () => {
    // A network that drops every packet: nothing is answered and nothing is closed.
    const proxy = await freezingProxy(process.env.TEST_DATABASE_URL ?? '');
    let givenUp = 0;
    // A limit well above a loaded machine's round trip, so that only the silence reaches it.
    const silent = new PipelinedConnection(proxy.url, {
      answerLimitMs: ANSWER_LIMIT_MS,
      onGiveUp: () => (givenUp += 1),
    });
    try {
      expect(await silent.query('probe_n', 'SELECT $1::int AS n', [1])).toEqual([{ n: 1 }]);
      proxy.freeze();
      const [first, behind] = await Promise.all(
        [2, 3].map((n) => silent.query('probe_n', 'SELECT $1::int AS n', [n]).catch((err: unknown) => err)),
      );
      expect(first).toMatchObject({ message: 'Query read timeout' });
      for (const failure of [first, behind]) {
        expect(isDatabaseSilent(failure)).toBe(true);
        expect(isDatabaseUnavailable(failure)).toBe(true);
      }
      // One connection given up, whatever was sent on it.
      expect(givenUp).toBe(1);
      proxy.thaw();
      expect(await silent.query('probe_n', 'SELECT $1::int AS n', [4])).toEqual([{ n: 4 }]);
    } finally {
      await silent.close();
      await proxy.close();
    }
  });

  it('a statement of the pool not answered within its limit fails as a silent database (a 503), and its connection is given up, not handed out again', async () => {
    const proxy = await freezingProxy(process.env.TEST_DATABASE_URL ?? '');
    const pooled = await openDatabase({
      databaseUrl: proxy.url,
      dataDir: null,
      poolSize: 2,
      pipelines: false,
      answerLimitMs: ANSWER_LIMIT_MS,
    });
    try {
      expect((await sql<{ n: number }>`SELECT 1 AS n`.execute(pooled.db)).rows).toEqual([{ n: 1 }]);
      proxy.freeze();
      const failure: unknown = await sql`SELECT 2 AS n`.execute(pooled.db).catch((err: unknown) => err);
      expect(failure).toMatchObject({ message: 'Query read timeout' });
      expect(isDatabaseSilent(failure)).toBe(true);
      expect(isDatabaseUnavailable(failure)).toBe(true);
      // Counted for /metrics (punchcard_db_connections_given_up_total).
      expect(pooled.poolStats().givenUp).toBe(1);
      proxy.thaw();
      // Its connection is gone from the pool: the next statement opens a new one.
      expect((await sql<{ n: number }>`SELECT 3 AS n`.execute(pooled.db)).rows).toEqual([{ n: 3 }]);
    } finally {
      await pooled.close();
      await proxy.close();
    }
  });

  it('closing answers the statements sent before; a closed connection takes no more', async () => {
    const own = fresh.database.pipeline();
    if (!own) throw new Error('no pipelined connection');
    expect(await own.query('probe_n', 'SELECT $1::int AS n', [5])).toEqual([{ n: 5 }]);
    const sentBefore = own.query<{ n: number }>('probe_late', 'SELECT pg_sleep(0.2), $1::int AS n', [8]);
    await own.close();
    expect((await sentBefore).map((r) => r.n)).toEqual([8]);
    await expect(own.query('probe_n', 'SELECT $1::int AS n', [6])).rejects.toThrow(/closed/);
  });
});
