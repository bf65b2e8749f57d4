import Fastify from 'fastify';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/store/db.js';

/**
 * The one-INSERT baseline of the card benchmark: a bare Fastify route that writes one row per
 * request into the same database, with the same pool size, as the service would. What the
 * service reaches relative to this is the figure the target is set on.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
  });
  await sql`CREATE TABLE IF NOT EXISTS bench_baseline (
              id bigserial PRIMARY KEY, merchant_id bigint NOT NULL, token_id text NOT NULL,
              amount_minor bigint NOT NULL, created_at timestamptz NOT NULL)`.execute(database.db);
  const app = Fastify({ logger: false });
  app.get('/readyz', async () => ({ ready: true }));
  app.post<{ Params: { id: string } }>('/insert/:id', async (request) => {
    await sql`INSERT INTO bench_baseline (merchant_id, token_id, amount_minor, created_at)
              VALUES (1, ${request.params.id}, 100, ${new Date()})`.execute(database.db);
    return { ok: true };
  });
  const stop = async (): Promise<void> => {
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  await app.listen({ port: config.port, host: config.host });
}

main().catch((err: unknown) => {
  process.stderr.write(`baseline failed: ${String(err)}\n`);
  process.exit(1);
});
