import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openTestDatabase } from '../support/harness.js';

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

/**
 * The embedded databases of a worker are handed from one test file to the next (docs/decisions.md,
 * "Tests"): each file must still start from the template, as if it had a database of its own.
 */
describe('an embedded test database handed to the next file', () => {
  it('comes back as the template: no rows, sequences restarted, and the old handle refuses queries', async () => {
    const first = await openTestDatabase('pglite');
    await addMerchant(first, 'first-file');
    const id = (await sql<{ id: number }>`SELECT id FROM merchants`.execute(first.database.db)).rows[0]?.id;
    expect(id).toBe(1);
    const instance = await started(first);
    await first.drop();
    await expect(sql`SELECT 1`.execute(first.database.db)).rejects.toThrow(/given back/);

    const next = await openTestDatabase('pglite');
    try {
      // The same instance (reused), emptied.
      expect(await started(next)).toBe(instance);
      expect(await merchants(next)).toBe(0);
      await addMerchant(next, 'next-file');
      const again = (await sql<{ id: number }>`SELECT id FROM merchants`.execute(next.database.db)).rows[0]
        ?.id;
      expect(again).toBe(1);
    } finally {
      await next.drop();
    }
  });

  it('is not handed on when a file changed more than rows: the next file gets a fresh instance', async () => {
    const first = await openTestDatabase('pglite');
    const instance = await started(first);
    await sql`CREATE OR REPLACE FUNCTION random_base32(n integer) RETURNS text LANGUAGE sql AS $$ SELECT 'x' $$`.execute(
      first.database.db,
    );
    await first.drop();

    const next = await openTestDatabase('pglite');
    try {
      expect(await started(next)).not.toBe(instance);
      const made = await sql<{ v: string }>`SELECT random_base32(8) AS v`.execute(next.database.db);
      expect(made.rows[0]?.v).toMatch(/^[a-z2-7]{8}$/i);
    } finally {
      await next.drop();
    }
  });
});
