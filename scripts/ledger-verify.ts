import { loadConfig } from '../src/config.js';
import { exitOnLockLost, lockDataDir } from '../src/store/data-dir-lock.js';

/**
 * `npm run ledger:verify`: checks the ledger and the points history of DATABASE_URL, or of the
 * embedded database in DATA_DIR. The embedded database has one process at a time: while a server
 * runs on DATA_DIR the check refuses, naming it. Exits 1 on any violation, 2 when the check cannot run.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  // Before anything heavy is loaded, so that a running server is named at once.
  const dataDirLock = config.databaseUrl === null ? lockDataDir(config.dataDir, exitOnLockLost) : undefined;
  const [{ verifyLedger }, { verifyPoints }, { openDatabase }] = await Promise.all([
    import('../src/ledger/ledger-verify.store.js'),
    import('../src/loyalty/points-verify.store.js'),
    import('../src/store/db.js'),
  ]);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
    ...(dataDirLock ? { dataDirLock } : {}),
  });
  try {
    const report = await verifyLedger(database.db);
    const points = await verifyPoints(database.db);
    const where = database.kind === 'postgres' ? 'PostgreSQL' : `embedded database in ${config.dataDir}`;
    process.stdout.write(
      `ledger:verify (${where}): ${report.accounts} accounts, ${report.transfers} transfers, ` +
        `${points.lots} points lots, ${points.movements} points movements, ` +
        `${points.usageMovements} campaign usage movements\n`,
    );
    const violations = [...report.violations, ...points.violations];
    for (const v of violations) process.stdout.write(`VIOLATION ${v}\n`);
    process.stdout.write(
      violations.length === 0 ? 'ledger:verify: OK\n' : `ledger:verify: ${violations.length} violation(s)\n`,
    );
    process.exitCode = violations.length === 0 ? 0 : 1;
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`ledger:verify failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
