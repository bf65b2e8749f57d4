import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/store/db.js';
import { migrateToLatest } from '../../src/store/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string | null;
  }
}

/**
 * Runs once per test run: compiles dist/ when src/ is newer (the tests that need a server process
 * start the compiled build, test/support/child-service.ts), migrates one embedded database and
 * dumps it, and (when TEST_DATABASE_URL is set) migrates a PostgreSQL template database. Each test
 * file starts from a copy of these instead of paying for initdb and the migrations again.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`node scripts/build.mjs failed (${build.status ?? build.signal})`);
  const cache = resolve('.test-cache');
  mkdirSync(cache, { recursive: true });
  const embedded = await openDatabase({ databaseUrl: null, dataDir: null });
  await migrateToLatest(embedded.db);
  const dump = await getDump(embedded);
  const file = join(cache, `pglite-template-${process.pid}.tar`);
  writeFileSync(file, dump);
  await embedded.close();
  project.provide('pgliteTemplate', file);

  const url = process.env.TEST_DATABASE_URL;
  let template: string | null = null;
  if (url) {
    template = `punchcard_tpl_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    try {
      await admin.connect();
    } catch (err) {
      throw new Error(`TEST_DATABASE_URL is set but PostgreSQL cannot be reached: ${String(err)}`);
    }
    await admin.query(`DROP DATABASE IF EXISTS ${template}`);
    await admin.query(`CREATE DATABASE ${template}`);
    await admin.end();
    const templateUrl = withDatabase(url, template);
    const database = await openDatabase({ databaseUrl: templateUrl, dataDir: null, poolSize: 1 });
    await migrateToLatest(database.db);
    await database.close();
  }
  project.provide('postgresTemplate', template);

  return async () => {
    rmSync(file, { force: true });
    if (url && template) {
      // The test files' databases whose drop had not ended with their worker (test/support/harness.ts),
      // several at a time: their checkpoints are then taken together.
      const admin = new pg.Pool({ connectionString: url, max: 8 });
      const left = await admin.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE datname LIKE $1',
        [`${template}\\_%`],
      );
      await Promise.all(
        left.rows.map((r) => admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`)),
      );
      await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await admin.end();
    }
  };
}

async function getDump(database: Awaited<ReturnType<typeof openDatabase>>): Promise<Buffer> {
  const blob = await database.dumpDataDir();
  return Buffer.from(await blob.arrayBuffer());
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
