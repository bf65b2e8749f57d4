import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { initdbTemplate, initdbTemplateFile, readInitdbTemplate } from '../../src/store/initdb-template.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';
import { storedFunctionFiles } from '../../src/store/stored-functions.js';
import type { DB } from '../../src/store/schema.js';

/**
 * initdb (or the build's empty cluster unpacked) and every migration on an empty directory: some
 * 30 s of a two-core machine that runs two other test files beside it (docs/decisions.md, "Tests").
 */
const SETUP_MS = 120_000;

/**
 * The embedded database's directory is created and migrated by a short-lived child process
 * (docs/decisions.md, "Starting and running it"): the server's own instance never runs
 * initdb or a migration, so what they grow does not stay in its resident set. A new directory
 * and one an earlier version left behind both come out of openDatabase fully migrated.
 */
describe('the embedded database set up in a child process', { timeout: SETUP_MS }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-setup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const applied = async (dataDir: string): Promise<string[]> => {
    const database = await openDatabase({ databaseUrl: null, dataDir, onLockLost: () => {} });
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
    // Made from the build's empty cluster (the test run builds dist/ first, test/support/global-setup.ts).
    expect(initdbTemplate()).toBe(initdbTemplateFile());
    expect(await applied(dir)).toEqual(migrations.map((m) => m.name));
  });

  it("without the build's empty cluster a new directory is made by initdb, the same as one unpacked from it", async () => {
    const made = mkdtempSync(join(tmpdir(), 'punchcard-initdb-'));
    const facts = async (dataDir: string, initdb: boolean) => {
      const database = await openDatabase({
        databaseUrl: null,
        dataDir,
        onLockLost: () => {},
        ...(initdb ? { initdbTemplate: null } : {}),
      });
      try {
        const databases =
          await sql`SELECT datname, pg_encoding_to_char(encoding) AS encoding, datcollate, datctype
          FROM pg_database ORDER BY datname`.execute(database.db);
        const settings = await sql`SELECT name, setting FROM pg_settings
          WHERE source = 'configuration file' ORDER BY name`.execute(database.db);
        const names = await sql`SELECT name FROM kysely_migration ORDER BY name`.execute(database.db);
        return { databases: databases.rows, settings: settings.rows, migrations: names.rows };
      } finally {
        await database.close();
      }
    };
    try {
      const byInitdb = await facts(made, true);
      expect(byInitdb.migrations).toHaveLength(migrations.length);
      expect(await facts(dir, false)).toEqual(byInitdb);
    } finally {
      rmSync(made, { recursive: true, force: true });
    }
  });

  it('a first start that fails while making the directory leaves nothing half made for the next start', async () => {
    // The build's cluster cut off right after its PG_VERSION, as a start killed at that moment of
    // unpacking leaves it: PG_VERSION there, the configuration files not.
    const cluster = readFileSync(initdbTemplateFile());
    const cut = mkdtempSync(join(tmpdir(), 'punchcard-cut-'));
    const target = mkdtempSync(join(tmpdir(), 'punchcard-first-'));
    try {
      const cutFile = join(cut, 'cluster.tar');
      writeFileSync(
        cutFile,
        Buffer.concat([cluster.subarray(0, tarEntryEnd(cluster, 'PG_VERSION')), Buffer.alloc(1024)]),
      );
      await expect(
        openDatabase({ databaseUrl: null, dataDir: target, onLockLost: () => {}, initdbTemplate: cutFile }),
      ).rejects.toThrow(/could not set up the embedded database/);
      expect(existsSync(join(target, 'pglite'))).toBe(false);
      expect(await applied(target)).toEqual(migrations.map((m) => m.name));
    } finally {
      rmSync(cut, { recursive: true, force: true });
      rmSync(target, { recursive: true, force: true });
    }
  });

  it('a directory missing the newest migration is brought up to date before the server uses it', async () => {
    // What an earlier version left: a directory migrated up to the migration before the newest.
    const earlier = mkdtempSync(join(tmpdir(), 'punchcard-earlier-'));
    try {
      const pglite = await PGlite.create(join(earlier, 'pglite'), {
        loadDataDir: readInitdbTemplate(initdbTemplateFile()),
      });
      const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
      await migrateToLatest(db, migrations.slice(0, -1));
      const before = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
      await db.destroy();
      expect(before.rows.map((r) => r.name)).toEqual(migrations.slice(0, -1).map((m) => m.name));
      expect(await applied(earlier)).toEqual(migrations.map((m) => m.name));
    } finally {
      rmSync(earlier, { recursive: true, force: true });
    }
  });

  it('a directory whose stored function differs from its file gets the file on the next start', async () => {
    // A change of src/ledger/sql/post_transfer.sql since the last start: the recorded hash is not
    // the file's.
    const pglite = await PGlite.create(join(dir, 'pglite'));
    await pglite.query(`UPDATE stored_functions SET sha256 = 'an earlier text' WHERE name = 'post_transfer'`);
    await pglite.close();
    const database = await openDatabase({ databaseUrl: null, dataDir: dir, onLockLost: () => {} });
    try {
      const row = await sql<{
        sha256: string;
      }>`SELECT sha256 FROM stored_functions WHERE name = 'post_transfer'`.execute(database.db);
      expect(row.rows).toEqual([
        { sha256: storedFunctionFiles().find((f) => f.name === 'post_transfer')?.sha256 },
      ]);
    } finally {
      await database.close();
    }
  });
});

/** The offset just past the entry `name` of a tar archive (its header and its data), named from the archive's root. */
function tarEntryEnd(tar: Buffer, name: string): number {
  for (let at = 0; at + 512 <= tar.length;) {
    const entry = tar.toString('latin1', at, at + 100).replace(/\0.*$/s, '');
    if (entry === '') break;
    const size = Number.parseInt(
      tar
        .toString('latin1', at + 124, at + 136)
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    const end = at + 512 + Math.ceil(size / 512) * 512;
    if (entry.replace(/^\.?\//, '') === name) return end;
    at = end;
  }
  throw new Error(`no ${name} in the archive`);
}
