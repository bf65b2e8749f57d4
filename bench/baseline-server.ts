import Fastify from 'fastify';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/store/db.js';

/**
 * The baseline of the load benchmarks: a bare Fastify route that parses the same JSON body and
 * does one INSERT per request into the same kind of database, with the same driver and pool.
 */
const config = loadConfig();
const database = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  poolSize: config.databasePoolSize,
});
await sql`CREATE TABLE IF NOT EXISTS bench_baseline (id text PRIMARY KEY, body jsonb NOT NULL)`.execute(
  database.db,
);

const app = Fastify({ logger: false, bodyLimit: config.bodyLimitBytes });
app.get('/readyz', async () => ({ status: 'ready' }));
app.post<{ Params: { id: string }; Body: unknown }>('/baseline/:id', async (request) => {
  await sql`INSERT INTO bench_baseline (id, body) VALUES (${request.params.id}, ${JSON.stringify(request.body)})`.execute(
    database.db,
  );
  return { ok: true };
});
const close = async () => {
  await app.close();
  await database.close();
  process.exit(0);
};
process.on('SIGTERM', () => void close());
process.on('SIGINT', () => void close());
await app.listen({ port: config.port, host: config.host });
