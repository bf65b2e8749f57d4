import type { PGlite } from '@electric-sql/pglite';
import { type Kysely, sql } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Migration } from './migrations/migration.js';
import type { DB } from './schema.js';
import { type StoredFunction, dueFunctions, storedFunctionFiles, temporaryCopy } from './stored-functions.js';

/**
 * The key of the migration lock: Kysely's migrator, which earlier versions ran, takes the same
 * one, so that a server of an earlier version starting at the same time waits as well.
 */
const MIGRATION_LOCK = '3853314791062309107';

/**
 * Brings the database to this version in one transaction under the migration lock (an advisory
 * lock of the transaction), so that of several instances starting together against one
 * PostgreSQL one migrates and the others find it done:
 *
 * 1. the stored functions whose file changed since they were applied (`functions`, by default
 *    every `src/<module>/sql/*.sql`; docs/architecture.md, "The stored-function layer"), first, so
 *    that the migrations' triggers, generated columns and data changes find them; their bodies
 *    are checked after step 2, as pg_dump creates functions before the tables they read;
 * 2. every pending numbered migration (of `list`: all of them unless a test builds the database
 *    an earlier version left), recorded in `kysely_migration` as Kysely's migrator did.
 *
 * Answers the names of the migrations applied.
 */
export async function migrateToLatest(
  db: Kysely<DB>,
  list: readonly Migration[] = migrations,
  functions: readonly StoredFunction[] = storedFunctionFiles(),
): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await withoutStatementLimit(trx);
    await sql.raw(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`).execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS kysely_migration (
                name varchar(255) PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS kysely_migration_lock (
                id varchar(255) PRIMARY KEY, is_locked integer NOT NULL DEFAULT 0)`.execute(trx);
    await sql`INSERT INTO kysely_migration_lock (id) VALUES ('migration_lock')
              ON CONFLICT (id) DO NOTHING`.execute(trx);
    const done = (
      await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name COLLATE "C"`.execute(trx)
    ).rows.map((r) => r.name);
    // A database of a newer version, or one whose history differs from this version's.
    done.forEach((name, i) => {
      if (list[i]?.name !== name)
        throw new Error(`migration ${name} is applied but is not migration ${i + 1} of this version`);
    });

    const applied = await applyDueFunctions(trx, functions);
    const ran: string[] = [];
    for (const m of list.slice(done.length)) {
      for (const statement of m.statements) await sql.raw(statement).execute(trx);
      await sql`INSERT INTO kysely_migration (name, timestamp)
                VALUES (${m.name}, ${new Date().toISOString()})`.execute(trx);
      ran.push(m.name);
    }
    // Created before the tables they read: checked now that those are there (SQL functions are
    // analysed against them, PL/pgSQL ones parsed).
    for (const f of applied) await sql.raw(f.text).execute(trx);
    return ran;
  });
}

/**
 * Applies the stored functions that are due, in a transaction under the migration lock, without
 * any numbered migration: for tests that build the state of an earlier version statement by
 * statement.
 */
export async function applyStoredFunctions(
  db: Kysely<DB>,
  functions: readonly StoredFunction[] = storedFunctionFiles(),
): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await withoutStatementLimit(trx);
    await sql.raw(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`).execute(trx);
    return (await applyDueFunctions(trx, functions)).map((f) => f.name);
  });
}

/**
 * A migration may rewrite a large table, and waits for the migration lock as long as another
 * instance migrates: no statement limit of the pool's applies in its transaction.
 */
async function withoutStatementLimit(trx: Kysely<DB>): Promise<void> {
  await sql`SET LOCAL statement_timeout = 0`.execute(trx);
}

interface Signature {
  identity: string;
  args: string;
  result: string;
}

async function signatures(
  trx: Kysely<DB>,
  name: string,
  schema: 'temporary' | 'current',
): Promise<Signature[]> {
  const namespace = schema === 'temporary' ? sql`pg_my_temp_schema()` : sql`current_schema()::regnamespace`;
  const rows = await sql<Signature>`
    SELECT pg_get_function_identity_arguments(p.oid) AS identity,
           pg_get_function_arguments(p.oid) AS args, pg_get_function_result(p.oid) AS result
      FROM pg_proc p WHERE p.proname = ${name} AND p.pronamespace = ${namespace}
     ORDER BY p.oid`.execute(trx);
  return rows.rows;
}

/**
 * The stored-function step (in the caller's transaction, under the lock): every file whose text
 * is not the one recorded in `stored_functions` (or whose function is missing) is applied, in the
 * order of the functions' names; a function whose file is gone is dropped. Bodies are not checked
 * here (`check_function_bodies` off for the step): a function may read a table a pending
 * migration makes. Answers the files applied.
 *
 * A file that declares another signature than the function has (arguments, their names or
 * defaults, the result) cannot be applied over it with CREATE OR REPLACE: the function of the
 * old signature is dropped first, by name and arguments, and without CASCADE, so that a trigger
 * or generated column that uses it stops the migration instead of going with it. What the file
 * declares is learnt from PostgreSQL itself: it is created once in the session's temporary
 * schema and dropped again.
 */
async function applyDueFunctions(
  trx: Kysely<DB>,
  functions: readonly StoredFunction[],
): Promise<StoredFunction[]> {
  await sql`CREATE TABLE IF NOT EXISTS stored_functions (
              name text PRIMARY KEY, sha256 text NOT NULL, applied_at timestamptz NOT NULL)`.execute(trx);
  const recorded = await sql<{ name: string; sha256: string }>`
    SELECT name, sha256 FROM stored_functions`.execute(trx);
  const present = await sql<{ name: string }>`
    SELECT DISTINCT proname AS name FROM pg_proc WHERE pronamespace = current_schema()::regnamespace`.execute(
    trx,
  );
  const due = dueFunctions(
    functions,
    new Map(recorded.rows.map((r) => [r.name, r.sha256])),
    new Set(present.rows.map((r) => r.name)),
  );
  if (due.apply.length === 0 && due.drop.length === 0) return [];
  await sql`SET LOCAL check_function_bodies = off`.execute(trx);
  for (const f of due.apply) {
    await sql.raw(temporaryCopy(f)).execute(trx);
    const [declared] = await signatures(trx, f.name, 'temporary');
    if (!declared) throw new Error(`stored function file ${f.path} did not create ${f.name}`);
    await sql.raw(`DROP FUNCTION pg_temp.${f.name}(${declared.identity})`).execute(trx);
    for (const old of await signatures(trx, f.name, 'current')) {
      if (old.identity === declared.identity && old.args === declared.args && old.result === declared.result)
        continue;
      await dropFunction(
        trx,
        f.name,
        old.identity,
        `its file ${f.path} declares ${f.name}(${declared.args})`,
      );
    }
    await sql.raw(f.text).execute(trx);
    await sql`INSERT INTO stored_functions (name, sha256, applied_at) VALUES (${f.name}, ${f.sha256}, now())
              ON CONFLICT (name) DO UPDATE SET sha256 = excluded.sha256, applied_at = excluded.applied_at`.execute(
      trx,
    );
  }
  for (const name of due.drop) {
    for (const old of await signatures(trx, name, 'current'))
      await dropFunction(trx, name, old.identity, 'its file is gone');
    await sql`DELETE FROM stored_functions WHERE name = ${name}`.execute(trx);
  }
  await sql`SET LOCAL check_function_bodies = on`.execute(trx);
  return due.apply;
}

async function dropFunction(trx: Kysely<DB>, name: string, identity: string, why: string): Promise<void> {
  try {
    await sql.raw(`DROP FUNCTION ${name}(${identity})`).execute(trx);
  } catch (err) {
    throw new Error(
      `stored function ${name}(${identity}) cannot be dropped (${why}): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/**
 * What an embedded database still needs of this version, read without changing anything (db.ts
 * applies it in a child process): the migrations it has not applied, and `function <name>` for
 * each stored function due (its file changed, or gone).
 */
export async function pendingMigrations(pglite: PGlite): Promise<string[]> {
  const found = async (table: string): Promise<boolean> =>
    Boolean(
      (await pglite.query<{ found: string | null }>(`SELECT to_regclass($1)::text AS found`, [table])).rows[0]
        ?.found,
    );
  const done = new Set(
    (await found('kysely_migration'))
      ? (await pglite.query<{ name: string }>('SELECT name FROM kysely_migration')).rows.map((r) => r.name)
      : [],
  );
  const recorded = (await found('stored_functions'))
    ? (await pglite.query<{ name: string; sha256: string }>('SELECT name, sha256 FROM stored_functions')).rows
    : [];
  const present = await pglite.query<{ name: string }>(
    `SELECT DISTINCT proname AS name FROM pg_proc WHERE pronamespace = current_schema()::regnamespace`,
  );
  const due = dueFunctions(
    storedFunctionFiles(),
    new Map(recorded.map((r) => [r.name, r.sha256])),
    new Set(present.rows.map((r) => r.name)),
  );
  return [
    ...migrations.map((m) => m.name).filter((name) => !done.has(name)),
    ...due.apply.map((f) => `function ${f.name}`),
    ...due.drop.map((name) => `function ${name}`),
  ];
}
