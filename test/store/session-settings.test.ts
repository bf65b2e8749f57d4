import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/store/db.js';

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
});
