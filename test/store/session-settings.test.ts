import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { isDatabaseSilent, isDatabaseUnavailable } from '../../src/shared/database-unavailable.js';
import { type Database, openDatabase } from '../../src/store/db.js';
import { cuttingProxy } from '../support/cutting-proxy.js';

const url = process.env.TEST_DATABASE_URL ?? '';
const pg = url ? describe : describe.skip;

/** What `SHOW jit` and the value a `RESET` would give say on `connections` connections of the pool at once. */
async function jitOf(db: Database['db'], connections: number): Promise<{ jit: string; reset: string }[]> {
  return Promise.all(
    Array.from({ length: connections }, async () => {
      const { rows } = await sql<{ jit: string; reset: string }>`
        SELECT current_setting('jit') AS jit, reset_val AS reset, pg_sleep(0.05)::text AS slept
          FROM pg_settings WHERE name = 'jit'`.execute(db);
      const row = rows[0];
      if (!row) throw new Error('no jit setting');
      return { jit: row.jit, reset: row.reset };
    }),
  );
}

/** The connection's `statement_timeout`, as `SHOW` words it. */
async function statementLimitOf(db: Database['db']): Promise<string | undefined> {
  const { rows } = await sql<{ limit: string }>`SELECT current_setting('statement_timeout') AS limit`.execute(
    db,
  );
  return rows[0]?.limit;
}

/**
 * docs/decisions.md, "No JIT compilation for the service's statements": every connection of the
 * service's pools, the replica's included, runs without JIT compilation, which cost the portal's
 * searches 300 to 450 ms a request among 100,000 orders; behind a pooler in transaction mode the
 * service leaves its sessions as the database gives them.
 */
pg('the service’s sessions on PostgreSQL (postgres)', () => {
  it('every connection of the pools, and of the replica’s, runs without JIT compilation', async () => {
    const database = await openDatabase({
      databaseUrl: url,
      databaseReadUrl: url,
      dataDir: null,
      pipelines: false,
      statementTimeoutMs: 30_000,
    });
    try {
      for (const db of [database.db, database.read]) {
        const seen = await jitOf(db, 3);
        expect(seen.map((s) => s.jit)).toEqual(['off', 'off', 'off']);
      }
      expect(await statementLimitOf(database.db)).toBe('30s');
    } finally {
      await database.close();
    }
  });

  it('behind a pooler in transaction mode the sessions are the database’s own', async () => {
    const database = await openDatabase({
      databaseUrl: url,
      dataDir: null,
      pipelines: false,
      statementTimeoutMs: 30_000,
      sessionSettings: false,
    });
    try {
      const seen = await jitOf(database.db, 2);
      for (const s of seen) expect(s.jit).toBe(s.reset);
      expect(await statementLimitOf(database.db)).toBe('0');
    } finally {
      await database.close();
    }
  });
  it('a connection ended while its session settings are set is let go by the pool: after more such ends than the pool holds connections, the next statement gets one at once', async () => {
    // The first five connections are ended as they send their first setting: the pool holds two.
    const proxy = await cuttingProxy(url, 'SET jit = off', 5);
    const database = await openDatabase({
      databaseUrl: proxy.url,
      dataDir: null,
      pipelines: false,
      poolSize: 2,
      statementTimeoutMs: 30_000,
    });
    // A pool that holds a connection it never gave back never ends: the service's stop would wait.
    let closed: Promise<boolean> | null = null;
    const close = () =>
      (closed ??= Promise.race([database.close().then(() => true), sleep(5_000).then(() => false)]));
    try {
      for (let i = 0; i < 5; i++) {
        const failed = await sql`SELECT 1 AS one`.execute(database.db).then(
          () => null,
          (err: unknown) => err,
        );
        // A connection cut, which the client may repeat at once: not a pool with no connection
        // free for the 10 s of its wait ("timeout exceeded when trying to connect").
        expect(failed, `statement ${i + 1}`).toBeInstanceOf(Error);
        expect(isDatabaseUnavailable(failed), String(failed)).toBe(true);
        expect(isDatabaseSilent(failed), String(failed)).toBe(false);
      }
      expect(proxy.cut()).toBe(5);
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db);
      expect(rows).toEqual([{ one: 1 }]);
      expect(await statementLimitOf(database.db)).toBe('30s');
      // The ended connections are not counted as the pool's: only the one that answered.
      expect(database.poolStats()).toMatchObject({ total: 1, waiting: 0 });
      expect(await close(), 'the pool ends').toBe(true);
    } finally {
      await close();
      await proxy.close();
    }
  });
});
