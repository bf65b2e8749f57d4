import { ConfigError, loadConfig } from './config.js';
import { loggerOptions, startUpLines } from './ops/start-up.js';
import type { MetricsServer } from './ops/metrics-server.js';
import { DataDirLockedError, exitOnLockLost, lockDataDir } from './store/data-dir-lock.js';
import { limitHeapGrowth } from './ops/heap-growth.js';

async function main(): Promise<void> {
  limitHeapGrowth();
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
  // The embedded database's lock comes first, before the rest of the service is loaded: a second
  // process on the same DATA_DIR refuses within a fraction of a second.
  const dataDirLock = config.databaseUrl === null ? lockDataDir(config.dataDir, exitOnLockLost) : undefined;
  const [
    { buildApp },
    { ensureAdminToken },
    { startMetricsServer },
    { systemClock },
    { openDatabase },
    { migrateToLatest },
  ] = await Promise.all([
    import('./app.js'),
    import('./bootstrap.js'),
    import('./ops/metrics-server.js'),
    import('./shared/clock.js'),
    import('./store/db.js'),
    import('./store/migrate.js'),
  ]);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    databaseReadUrl: config.databaseReadUrl,
    pipelines: config.databasePooler === 'none' || config.databasePipelineUrl !== null,
    pipelineUrl: config.databasePipelineUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    // A pooler in transaction mode hands one server connection to many clients: the limit and the
    // other session settings are the database's there (docs/decisions.md, "A statement's limit").
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    sessionSettings: config.databasePooler === 'none',
    ...(dataDirLock ? { dataDirLock } : {}),
  });
  if (config.databaseUrl === null) await migrateToLatest(database.db);
  else {
    // A migration may rewrite a large table, or wait for another instance's: none of the pools'
    // limits applies to it, on a connection of its own (docs/decisions.md, "A database that stops
    // answering").
    const migrations = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: null,
      poolSize: 1,
      pipelines: false,
      sessionSettings: config.databasePooler === 'none',
    });
    try {
      await migrateToLatest(migrations.db);
    } finally {
      await migrations.close();
    }
  }
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

  let metricsServer: MetricsServer | null = null;
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
      await metricsServer?.close();
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
  if (config.metricsPort !== null) metricsServer = await startMetricsServer(app.metricsRegistry, config);
  for (const line of startUpLines(config, app.server.address(), admin.source)) {
    app.log.info(line.fields, line.msg);
  }
  if (metricsServer) {
    app.log.info({ metricsPort: metricsServer.port }, `Metrics served on port ${metricsServer.port} only`);
  }
}

main().catch((err: unknown) => {
  if (err instanceof DataDirLockedError) {
    process.stderr.write(`punchcard: not started: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `punchcard: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
