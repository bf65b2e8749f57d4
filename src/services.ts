import type { BasketDeps } from './baskets/basket-deps.js';
import { BasketWriter, type BasketWriterOptions } from './baskets/basket-writer.js';
import { RuleSetCache } from './campaigns/rules.store.js';
import type { AppContext } from './context.js';

/**
 * The composition root: the services and caches of one app, built once when the app is built
 * (src/app.ts) and handed to the routes as `app.services`. Nothing of this lives in module
 * state, so two apps in one process (as the tests run them) share nothing.
 */
export interface Services {
  readonly baskets: BasketDeps;
}

/**
 * Uploads share the database in batches (group commit): on PostgreSQL up to a quarter of the
 * pool writes baskets at once, leaving the rest for everything else; the embedded database has
 * one connection.
 */
function basketWriterOptions(ctx: AppContext): BasketWriterOptions {
  const concurrency =
    ctx.database.kind === 'pglite' ? 1 : Math.max(1, Math.floor(ctx.config.databasePoolSize / 4));
  return { concurrency, maxBatch: 64 };
}

export function createServices(ctx: AppContext): Services {
  const { db } = ctx.database;
  return {
    baskets: {
      db,
      clock: ctx.clock,
      writer: new BasketWriter(db, basketWriterOptions(ctx)),
      // The built campaign index per merchant and rules version, for the 1,000 most recent merchants.
      ruleSets: new RuleSetCache(db, 1000),
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
