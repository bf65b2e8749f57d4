import type { Config } from './config.js';
import type { Clock } from './shared/clock.js';
import type { Database } from './store/db.js';

/** What the routes need from the process: settings, the database and the clock. */
export interface AppContext {
  readonly config: Config;
  readonly database: Database;
  readonly clock: Clock;
  /** Hash of the operator token (sha256 hex). */
  readonly adminTokenHash: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
