import type { Kysely } from 'kysely';
import { verifyLedger } from '../../src/ledger/ledger-verify.store.js';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import { openDatabase } from '../../src/store/db.js';
import type { DB } from '../../src/store/schema.js';

/**
 * After a run, with the service stopped: `read` on the service's database, and the check that
 * `npm run ledger:verify` makes (the ledger and the points history), so that every benchmark that
 * moves money says whether it came out exact.
 */
export async function afterRun<T>(
  env: Record<string, string>,
  read: (db: Kysely<DB>) => Promise<T>,
): Promise<T & { ledgerViolations: number }> {
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL ?? null,
    dataDir: env.DATA_DIR ?? '',
    poolSize: 2,
  });
  try {
    const found = await read(database.db);
    const ledger = await verifyLedger(database.db);
    const points = await verifyPoints(database.db);
    return { ...found, ledgerViolations: ledger.violations.length + points.violations.length };
  } finally {
    await database.close();
  }
}

/** "ledger:verify: OK." or the number of violations, for the line under a benchmark's table. */
export function ledgerVerdict(violations: number): string {
  return `ledger:verify: ${violations === 0 ? 'OK' : `${violations} violation(s)`}.`;
}
