import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { hashToken } from '../../src/admin/auth.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import {
  isDatabaseSilent,
  isDatabaseOutOfRoom,
  isDatabaseUnavailable,
  isRowLockedTooLong,
  isTransactionConflict,
} from '../../src/shared/database-unavailable.js';
import { toAppError } from '../../src/wire/error-render.js';
import { type Database, openDatabase } from '../../src/store/db.js';
import { ADMIN_TOKEN, TestClock, databases, openTestDatabase } from '../support/harness.js';

describe('a database that cannot be reached is a 503 to repeat, never a 500', () => {
  it.each([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    ['a connection cut by the server', new Error('Connection terminated unexpectedly')],
    ['the pool waiting in vain', new Error('timeout exceeded when trying to connect')],
    [
      'the server shutting down (57P01)',
      Object.assign(new Error('terminating connection'), { code: '57P01' }),
    ],
    [
      'the server starting (57P03)',
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
    ],
    [
      'a write on a node that became a replica (25006)',
      Object.assign(new Error('read-only'), { code: '25006' }),
    ],
    ['a connection exception (08006)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['the cause of a wrapping error', new Error('order batch failed', { cause: { code: 'ECONNRESET' } })],
  ])('%s', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation (23505)', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a serialization failure (40001)', Object.assign(new Error('could not serialize'), { code: '40001' })],
    ['a programming error', new TypeError('x is undefined')],
    ['nothing', null],
  ])('but not %s', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});

describe('a database that is silent (no connection opened, or no answer, within the limit): no item of a batch is its cause', () => {
  it.each([
    [
      "a writer's connect past its limit (08001)",
      Object.assign(new Error('No connection to the database could be opened (timeout expired).'), {
        code: '08001',
      }),
    ],
    ['the pool waiting in vain', new Error('timeout exceeded when trying to connect')],
    ['a statement not answered within its limit', new Error('Query read timeout')],
    [
      'a statement sent behind one not answered',
      new Error('Query read timeout (a statement sent before this one was not answered in time)', {
        cause: new Error('Connection terminated unexpectedly'),
      }),
    ],
    ['the cause of a wrapping error', new Error('order batch failed', { cause: { code: '08001' } })],
  ])('%s', (_what, err) => {
    expect(isDatabaseSilent(err)).toBe(true);
    expect(isDatabaseUnavailable(err)).toBe(true);
    // A 503 to repeat, logged for the operator: a network that drops everything is theirs to see.
    expect(toAppError(err)).toMatchObject({
      app: { entry: { status: 503 }, detail: 'The database did not answer in time; retry shortly.' },
      unexpected: true,
    });
  });

  it.each([
    [
      'a refused connection, where another may open at once',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    [
      'too many connections (53300), where the pool may hold an open one',
      Object.assign(new Error('too many'), { code: '53300' }),
    ],
    ['a connection cut by the server', new Error('Connection terminated unexpectedly')],
    [
      'the server shutting down (57P01)',
      Object.assign(new Error('terminating connection'), { code: '57P01' }),
    ],
    ['a connection reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a connection failure (08006)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['a unique violation (23505)', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['nothing', null],
  ])('but not %s', (_what, err) => {
    expect(isDatabaseSilent(err)).toBe(false);
  });
});

describe('a database with no room is a 503 to repeat later, never a 500', () => {
  it.each([
    ['a full disk (53100)', Object.assign(new Error('could not extend file'), { code: '53100' })],
    ['no memory left (53200)', Object.assign(new Error('out of memory'), { code: '53200' })],
    ['the cause of a wrapping error', new Error('order batch failed', { cause: { code: '53100' } })],
  ])('%s', (_what, err) => {
    expect(isDatabaseOutOfRoom(err)).toBe(true);
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it.each([
    ['too many connections (53300): unavailable instead', Object.assign(new Error('x'), { code: '53300' })],
    ['a unique violation (23505)', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['nothing', null],
  ])('but not %s', (_what, err) => {
    expect(isDatabaseOutOfRoom(err)).toBe(false);
  });

  it.each([
    ['a row held past the wait (55P03)', Object.assign(new Error('lock timeout'), { code: '55P03' }), true],
    ['its cause', new Error('order batch failed', { cause: { code: '55P03' } }), true],
    ['a deadlock (40P01)', Object.assign(new Error('deadlock detected'), { code: '40P01' }), false],
    ['a unique violation (23505)', Object.assign(new Error('duplicate key'), { code: '23505' }), false],
  ])('a row locked for long is told by lock_not_available only: %s', (_what, err, locked) => {
    expect(isRowLockedTooLong(err)).toBe(locked);
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it.each([
    ['a deadlock (40P01)', Object.assign(new Error('deadlock detected'), { code: '40P01' }), true, 503],
    [
      'a serialization failure (40001)',
      Object.assign(new Error('could not serialize'), { code: '40001' }),
      true,
      503,
    ],
    ['its cause', new Error('order failed', { cause: { code: '40P01' } }), true, 503],
    [
      'a row held past the wait (55P03)',
      Object.assign(new Error('lock timeout'), { code: '55P03' }),
      false,
      503,
    ],
    ['a unique violation (23505)', Object.assign(new Error('duplicate key'), { code: '23505' }), false, 500],
  ])(
    'a transaction undone for a conflict is told by its SQLSTATE and answered 503 to repeat: %s',
    (_what, err, conflict, status) => {
      expect(isTransactionConflict(err)).toBe(conflict);
      expect(toAppError(err).app.entry.status).toBe(status);
    },
  );
});

describe('every interface answers 503 with Retry-After while no database answers', () => {
  let app: FastifyInstance;
  let database: Database;

  beforeAll(async () => {
    // Nothing listens on port 1: every connection is refused, as while no leader exists.
    database = await openDatabase({
      databaseUrl: 'postgres://nobody@127.0.0.1:1/none',
      dataDir: null,
      poolSize: 2,
    });
    const config = {
      ...loadConfig({ ADMIN_TOKEN, DATA_DIR: '/tmp/punchcard-test', NODE_ENV: 'test' }),
      outboxDisabled: true,
    };
    app = await buildApp({
      config,
      database,
      clock: new TestClock(),
      adminTokenHash: hashToken(ADMIN_TOKEN),
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('the operator API (JSON)', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/api/admin/v1/devKeys',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect((res.json() as { error: { code: string } }).error.code).toBe('service_unavailable');
  });

  it('the POS interface (XML, ErrorId 1010)', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/api/pos/v3/merchants/cafe/info',
      headers: { devkey: 'any-dev-key-000000' },
    });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toContain('<ErrorId>1010</ErrorId>');
  });
});

/**
 * A pooled connection that PostgreSQL ends while the service holds it between two statements (a
 * transaction waiting on its own work, a failover, an operator's pg_terminate_backend): the
 * statement after fails as a database that cannot be reached (a 503 to repeat), the pool replaces
 * the connection, and the process goes on (docs/decisions.md, "A database connection lost while
 * in use").
 */
describe.each(databases.filter((kind) => kind === 'postgres'))(
  'a pooled connection ended by %s while in use',
  (kind) => {
    let fresh: { database: Database; drop(): Promise<void> };
    beforeAll(async () => {
      fresh = await openTestDatabase(kind);
    });
    afterAll(async () => {
      await fresh.drop();
    });

    it('fails the statement after it, takes nothing down, and the next statement gets a new connection', async () => {
      const { db } = fresh.database;
      let ended = 0;
      const transaction = db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
        ended = rows[0]?.pid ?? 0;
        // Ended from another connection while this one waits between two statements.
        await sql`SELECT pg_terminate_backend(${ended})`.execute(db);
        for (let i = 0; i < 100; i++) {
          const left = await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ${ended}`.execute(db);
          if (left.rows[0]?.n === 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        // The connection's end has reached the client before the next statement.
        await new Promise((r) => setTimeout(r, 100));
        await sql`SELECT 1`.execute(trx);
      });
      const failed: unknown = await transaction.then(
        () => null,
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(failed), String(failed)).toBe(true);
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db);
      expect(rows[0]?.pid).not.toBe(ended);
    });
  },
);
