import { buildApp } from './app.js';
import { ensureAdminToken } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { loggerOptions, startUpLines } from './ops/start-up.js';
import { systemClock } from './shared/clock.js';
import { openDatabase } from './store/db.js';
import { migrateToLatest } from './store/migrate.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`punchcard: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
  });
  await migrateToLatest(database.db);
  const admin = await ensureAdminToken(config, database);
  const app = await buildApp(
    { config, database, clock: systemClock, adminTokenHash: admin.hash },
    { logger: loggerOptions(config.logLevel, process.stdout.isTTY === true) },
  );
  if (admin.created) {
    // Printed once, on the start that made it; only its hash is kept.
    process.stdout.write(
      `\nPunchcard operator token (shown once, keep it): ${admin.created}\n` +
        `Use it as "Authorization: Bearer <token>" on /api/admin/v1, or set ADMIN_TOKEN.\n\n`,
    );
  }

  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: no new requests, finishing those in flight');
    const force = setTimeout(() => {
      app.log.error('shutdown took longer than 30 s; exiting');
      process.exit(1);
    }, 30_000);
    force.unref();
    try {
      await app.close();
      await database.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({
    port: config.port,
    host: config.host,
    listenTextResolver: (address) => `Punchcard listening on ${address}`,
  });
  for (const line of startUpLines(config, app.server.address(), admin.source)) {
    app.log.info(line.fields, line.msg);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `punchcard: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
