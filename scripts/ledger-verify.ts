import { loadConfig } from '../src/config.js';
import { verifyLedger } from '../src/ledger/ledger-verify.js';
import { verifyPoints } from '../src/loyalty/points-verify.js';
import { openDatabase } from '../src/store/db.js';

/**
 * `npm run ledger:verify`: checks the ledger and the points history of DATABASE_URL, or of the
 * embedded database in DATA_DIR (stop the server first: the embedded database has one user at a
 * time). Exits 1 on any violation, 2 when the check cannot run.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
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
