import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { readInitdbTemplate } from './initdb-template.js';
import { migrateToLatest } from './migrate.js';
import type { DB } from './schema.js';
import { holdSetUp } from './set-up-lock.js';

/**
 * Run as a short-lived child process by db.ts: creates the embedded database in the directory
 * `argv[2]` when it is new (the build's empty cluster unpacked when `argv[6]` names it, initdb
 * otherwise; initdb-template.ts) and applies the pending migrations, then exits. `argv[4]` is the
 * database's place (`argv[2]`, or where the directory made beside it goes) and `argv[5]` the
 * server's pid, for the set-up's lock (set-up-lock.ts). PGlite's WebAssembly memory only grows:
 * initdb (some 500 MB) and the migrations (which read and build every table's catalog entries)
 * would otherwise stay in the server's resident set for as long as it runs (docs/decisions.md,
 * "Starting and running it").
 */
async function main(): Promise<void> {
  const [dataDir, startParams, place, serverPid, template] = process.argv.slice(2);
  if (!dataDir || !startParams || !place || !serverPid)
    throw new Error(
      'usage: embedded-setup <dataDir> <startParams JSON> <place> <server pid> [empty cluster .tar]',
    );
  // Held while the database is written; gone with the server (set-up-lock.ts).
  const lock = holdSetUp(place, Number(serverPid));
  try {
    await setUp(dataDir, startParams, template);
  } finally {
    lock.release();
  }
}

async function setUp(dataDir: string, startParams: string, template: string | undefined): Promise<void> {
  const pglite = await PGlite.create(dataDir, {
    startParams: JSON.parse(startParams) as string[],
    ...(template ? { loadDataDir: readInitdbTemplate(template) } : {}),
  });
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
