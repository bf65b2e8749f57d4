import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../../src/store/db.js';
import type { DB } from '../../src/store/schema.js';
import { type Template, fingerprintOf, readTemplate, restartSequences } from './embedded-pool.js';
import { withDatabase } from './global-setup.js';

/**
 * The PostgreSQL test databases of a worker process, handed from one test file to the next
 * (docs/decisions.md, "Tests"): making one from the run's template (CREATE DATABASE) took 0.2 to
 * 0.4 s of a file's start, and dropping it an immediate checkpoint of the whole server (0.1 to 1 s
 * of PostgreSQL's work, behind the next file). A database a file is done with is emptied instead:
 * the other sessions on it ended, every table the migrations leave empty emptied, every sequence
 * where the template has it, then checked against the template's fingerprint (schema, functions,
 * triggers, settings, the migrations' rows); one that differs, or cannot be emptied within seconds,
 * is dropped, and the next file gets a new one. TRUNCATE of the 56 empty tables took 0.4 to 0.5 s
 * (a new file for every table and index), so the rows are deleted, with the foreign keys' triggers
 * off for that transaction.
 */
interface PostgresTemplate {
  readonly template: Template;
  /** One statement per table the migrations leave empty. */
  readonly deleteAll: string;
}

let read: PostgresTemplate | null = null;
/** Databases of this process that a test file gave back, emptied, ready for the next. */
const idle: { template: string; name: string }[] = [];

/** A connection of its own to one database, closed after `use`. */
async function onOwnConnection<T>(url: string, use: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  // The run's teardown drops what is left WITH (FORCE), which may end this connection while it
  // closes: a query on it fails by itself; the pool's event must not end the worker as uncaught.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  try {
    return await use(db);
  } finally {
    await db.destroy();
  }
}

async function empty(url: string, from: PostgresTemplate): Promise<boolean> {
  return onOwnConnection(url, async (db) => {
    // A session a test left open (its own client, a leaked pool) must not write into the next file.
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
               WHERE datname = current_database() AND pid <> pg_backend_pid()`.execute(db);
    await sql`SET lock_timeout = '5s'`.execute(db);
    await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx);
      if (from.deleteAll) await sql.raw(from.deleteAll).execute(trx);
    });
    await restartSequences(db, from.template);
    return (await fingerprintOf(db)) === from.template.fingerprint;
  });
}

function dropInBackground(url: string, name: string): void {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => undefined);
  void c
    .connect()
    .then(() => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    .catch(() => undefined)
    .finally(() => void c.end().catch(() => undefined));
}

/**
 * A PostgreSQL database as the run's template left it, for one test file, opened with `open`.
 * Named after the template, so that the run's global teardown drops what is left of them.
 */
export async function takePostgres(
  url: string,
  template: string,
  open: (name: string) => Promise<Database>,
): Promise<{ database: Database; drop(): Promise<void> }> {
  for (const stale of idle.filter((d) => d.template !== template)) dropInBackground(url, stale.name);
  const kept = idle.filter((d) => d.template === template);
  idle.length = 0;
  idle.push(...kept);
  let name = idle.pop()?.name;
  if (name === undefined) {
    name = `${template}_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    } finally {
      await admin.end();
    }
    if (read?.template.dump !== template) {
      const t = await onOwnConnection(withDatabase(url, name), (db) => readTemplate(db, template));
      read = { template: t, deleteAll: t.empty.map((table) => `DELETE FROM ${table};`).join('\n') };
    }
  }
  const own = name;
  const from = read;
  if (from === null) throw new Error('the PostgreSQL template was not read');
  const database = await open(own);
  let dropped: Promise<void> | null = null;
  const drop = () => {
    dropped ??= (async () => {
      await database.close();
      let clean = false;
      try {
        clean = await empty(withDatabase(url, own), from);
      } catch {
        clean = false;
      }
      if (clean && read === from) idle.push({ template, name: own });
      else dropInBackground(url, own);
    })();
    return dropped;
  };
  return { database: { ...database, close: drop }, drop };
}
