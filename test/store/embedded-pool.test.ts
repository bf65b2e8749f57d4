import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { withDatabase } from '../support/global-setup.js';
import { type DatabaseKind, databases, openTestDatabase } from '../support/harness.js';

type Handle = Awaited<ReturnType<typeof openTestDatabase>>;

const started = async (h: Handle): Promise<string> =>
  (await sql<{ t: string }>`SELECT pg_postmaster_start_time()::text AS t`.execute(h.database.db)).rows[0]
    ?.t ?? '';

const merchants = async (h: Handle): Promise<number> =>
  (await sql<{ n: number }>`SELECT count(*)::integer AS n FROM merchants`.execute(h.database.db)).rows[0]
    ?.n ?? -1;

const addMerchant = (h: Handle, name: string) =>
  sql`INSERT INTO merchants (service_user_name, display_name, currency, time_zone)
      VALUES (${name}, ${name}, 'EUR', 'Europe/Berlin')`.execute(h.database.db);

const databaseName = async (h: Handle): Promise<string> =>
  (await sql<{ n: string }>`SELECT current_database() AS n`.execute(h.database.db)).rows[0]?.n ?? '';

/** What tells one database from another: an embedded instance's start, PostgreSQL's database name. */
const identity = (kind: DatabaseKind, h: Handle): Promise<string> =>
  kind === 'pglite' ? started(h) : databaseName(h);

/** A session of the file's own on its PostgreSQL database, left open as a careless test would. */
async function openSession(h: Handle): Promise<pg.Client> {
  const url = withDatabase(process.env.TEST_DATABASE_URL ?? '', await databaseName(h));
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * The test databases of a worker are handed from one test file to the next (docs/decisions.md,
 * "Tests"): each file must still start from the template, as if it had a database of its own.
 */
describe.each(databases)('a test database handed to the next file, on %s', (kind) => {
  it('comes back as the template: no rows, sequences restarted, and what the file held refuses queries', async () => {
    const first = await openTestDatabase(kind);
    await addMerchant(first, 'first-file');
    const id = (await sql<{ id: number }>`SELECT id FROM merchants`.execute(first.database.db)).rows[0]?.id;
    expect(id).toBe(1);
    const before = await identity(kind, first);
    const session = kind === 'postgres' ? await openSession(first) : null;
    await first.drop();
    if (session === null) {
      await expect(sql`SELECT 1`.execute(first.database.db)).rejects.toThrow(/given back/);
    } else {
      // Its session was ended: it cannot reach into the next file's rows.
      await expect(session.query('SELECT 1')).rejects.toThrow();
      await session.end().catch(() => undefined);
    }

    const next = await openTestDatabase(kind);
    try {
      // The same database (reused), emptied.
      expect(await identity(kind, next)).toBe(before);
      expect(await merchants(next)).toBe(0);
      await addMerchant(next, 'next-file');
      const again = (await sql<{ id: number }>`SELECT id FROM merchants`.execute(next.database.db)).rows[0]
        ?.id;
      expect(again).toBe(1);
    } finally {
      await next.drop();
    }
  });

  it('is not handed on when a file changed more than rows: the next file gets a new one', async () => {
    const first = await openTestDatabase(kind);
    const before = await identity(kind, first);
    await sql`CREATE OR REPLACE FUNCTION random_base32(n integer) RETURNS text LANGUAGE sql AS $$ SELECT 'x' $$`.execute(
      first.database.db,
    );
    await first.drop();

    const next = await openTestDatabase(kind);
    try {
      expect(await identity(kind, next)).not.toBe(before);
      const made = await sql<{ v: string }>`SELECT random_base32(8) AS v`.execute(next.database.db);
      expect(made.rows[0]?.v).toMatch(/^[a-z2-7]{8}$/i);
    } finally {
      await next.drop();
    }
  });
});
