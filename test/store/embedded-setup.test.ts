import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';

/**
 * The embedded database's directory is created and migrated by a short-lived child process
 * (docs/decisions.md, "Starting and running it"): the server's own instance never runs
 * initdb or a migration, so what they grow does not stay in its resident set. A new directory
 * and one an earlier version left behind both come out of openDatabase fully migrated.
 */
describe('the embedded database set up in a child process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-setup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const applied = async (): Promise<string[]> => {
    const database = await openDatabase({ databaseUrl: null, dataDir: dir, onLockLost: () => {} });
    try {
      const rows = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(
        database.db,
      );
      return rows.rows.map((r) => r.name);
    } finally {
      await database.close();
    }
  };

  it('a new directory is opened with every migration applied', async () => {
    expect(await applied()).toEqual(migrations.map((m) => m.name));
  });

  it('a directory missing the newest migration is brought up to date before the server uses it', async () => {
    const last = migrations[migrations.length - 1];
    if (!last) throw new Error('no migrations');
    // What the directory looked like before the newest migration: its objects and its record gone.
    const database = await openDatabase({ databaseUrl: null, dataDir: dir, onLockLost: () => {} });
    await sql`DROP FUNCTION place_orders(json, json)`.execute(database.db);
    await sql`DROP TYPE checkout_order_write`.execute(database.db);
    await sql`DELETE FROM kysely_migration WHERE name = ${last.name}`.execute(database.db);
    await database.close();
    expect(await applied()).toEqual(migrations.map((m) => m.name));
  });
});
