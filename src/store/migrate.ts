import type { PGlite } from '@electric-sql/pglite';
import { type Kysely, type Migration as KyselyMigration, Migrator, sql } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Migration } from './migrations/migration.js';
import type { DB } from './schema.js';

/**
 * Applies every pending migration (of `list`: all of them unless a test builds the database an
 * earlier version left). Kysely's migrator takes a database-wide lock, so several instances
 * starting together against one PostgreSQL apply each migration exactly once.
 */
export async function migrateToLatest(
  db: Kysely<DB>,
  list: readonly Migration[] = migrations,
): Promise<string[]> {
  const provider = {
    async getMigrations(): Promise<Record<string, KyselyMigration>> {
      const out: Record<string, KyselyMigration> = {};
      for (const m of list) {
        out[m.name] = {
          async up(trx: Kysely<unknown>): Promise<void> {
            for (const statement of m.statements) await sql.raw(statement).execute(trx);
          },
        };
      }
      return out;
    },
  };
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * The migrations an embedded database has not applied yet, read without changing anything (db.ts
 * applies them in a child process).
 */
export async function pendingMigrations(pglite: PGlite): Promise<string[]> {
  const table = await pglite.query<{ found: string | null }>(
    `SELECT to_regclass('kysely_migration')::text AS found`,
  );
  if (!table.rows[0]?.found) return migrations.map((m) => m.name);
  const applied = await pglite.query<{ name: string }>('SELECT name FROM kysely_migration');
  const done = new Set(applied.rows.map((r) => r.name));
  return migrations.map((m) => m.name).filter((name) => !done.has(name));
}
