import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { RunningServer } from '../../bench/lib/server.js';
import { startServer } from '../../bench/server-process.js';
import { withDatabase } from './global-setup.js';
import type { DatabaseKind } from './harness.js';

/**
 * The service as a child process, for the tests that need a real one (a crash, a restart, two
 * instances, a lock between processes): the compiled build, as `npm start` runs it. The run's
 * global setup compiles it first when src/ is newer than dist/ (scripts/build.mjs), so a test never
 * starts a stale build, and no start pays for compiling TypeScript on the fly.
 */
export function startService(env: Record<string, string>): Promise<RunningServer> {
  return startServer(env, [], 'dist');
}

/** Where a child service keeps its data: the environment it starts with, and how to remove it. */
export interface ServiceDatabase {
  readonly env: Record<string, string>;
  drop(): Promise<void>;
}

/** One statement on the PostgreSQL server's admin connection (CREATE or DROP DATABASE). */
export async function adminQuery(url: string, text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/**
 * A migrated database of the given kind for a child service, copied from the run's template
 * (test/support/global-setup.ts): a DATA_DIR holding the embedded database unpacked from the run's
 * dump, or a PostgreSQL database made from the migrated template database. The service then starts
 * without initdb and without migrations, as it does on every start after the first.
 */
export async function serviceDatabase(kind: DatabaseKind, label: string): Promise<ServiceDatabase> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), `punchcard-${label}-`));
    mkdirSync(join(dir, 'pglite'));
    execFileSync('tar', ['-xf', inject('pgliteTemplate'), '-C', join(dir, 'pglite')], { stdio: 'ignore' });
    return { env: { DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = process.env.TEST_DATABASE_URL;
  const template = inject('postgresTemplate');
  if (!url || !template) throw new Error('PostgreSQL tests need TEST_DATABASE_URL');
  const name = `punchcard_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}`;
  await adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminQuery(url, `CREATE DATABASE ${name} TEMPLATE ${template}`);
  return {
    env: { DATABASE_URL: withDatabase(url, name) },
    drop: () => adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
