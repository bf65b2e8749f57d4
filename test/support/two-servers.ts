import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inject } from 'vitest';
import { type RunningServer, startProcess } from '../../bench/lib/server.js';
import { openDatabase } from '../../src/store/db.js';
import type { DB } from '../../src/store/schema.js';
import { adminQuery } from './child-service.js';
import { withDatabase } from './global-setup.js';
import { ADMIN_TOKEN } from './harness.js';
import { HttpClient } from './http-pos.js';

/**
 * Two server processes (the compiled build, test/support/child-service.ts) on one new PostgreSQL
 * database, as two instances behind a load balancer.
 */
export interface TwoServers {
  /** One HTTP client per server process, in the order they were started. */
  readonly clients: HttpClient[];
  /** The database both processes use. */
  readonly databaseUrl: string;
  start(): Promise<void>;
  /** Runs `work` on a connection of its own to the database both processes use (its checks). */
  inDatabase<T>(work: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  /** Stops both processes and drops their database. */
  stop(): Promise<void>;
}

/**
 * Two servers on a database of its own named after `prefix`, on the PostgreSQL of `TEST_DATABASE_URL`;
 * `env` adds to both servers' environment (limits set low for a test).
 */
export function twoServers(prefix: string, env: Record<string, string> = {}): TwoServers {
  const url = process.env.TEST_DATABASE_URL ?? '';
  const name = `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const servers: RunningServer[] = [];
  const clients: HttpClient[] = [];
  // Read when used, not when the suite is collected: without TEST_DATABASE_URL the suite is
  // skipped, and an empty address is no URL.
  const databaseUrl = () => withDatabase(url, name);
  return {
    clients,
    get databaseUrl() {
      return databaseUrl();
    },
    async start() {
      await adminQuery(url, `CREATE DATABASE ${name} TEMPLATE ${inject('postgresTemplate') ?? 'template1'}`);
      const both = { DATABASE_URL: databaseUrl(), ADMIN_TOKEN, DATABASE_POOL_SIZE: '10', ...env };
      const started = await Promise.all([
        startProcess(['dist/server.js'], both),
        startProcess(['dist/server.js'], both),
      ]);
      for (const s of started) {
        servers.push(s);
        clients.push(new HttpClient(s.baseUrl, ADMIN_TOKEN, 10));
      }
    },
    async inDatabase(work) {
      const database = await openDatabase({ databaseUrl: databaseUrl(), dataDir: null, poolSize: 1 });
      try {
        return await work(database.db);
      } finally {
        await database.close();
      }
    },
    async stop() {
      for (const c of clients) await c.close();
      for (const s of servers) await s.stop();
      await adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
