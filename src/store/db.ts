import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { type DataDirLock, exitOnLockLost, lockDataDir } from './data-dir-lock.js';
import type { DB } from './schema.js';

/**
 * One factory for both databases. The schema, the migrations and every query are the same
 * PostgreSQL dialect; only the driver differs.
 */
export interface Database {
  readonly db: Kysely<DB>;
  readonly kind: 'pglite' | 'postgres';
  /** Pool figures for /metrics (PGlite has one connection). */
  poolStats(): { total: number; idle: number; waiting: number };
  /** A dump of the embedded database (tests start from it); PostgreSQL has none. */
  dumpDataDir(): Promise<Blob>;
  close(): Promise<void>;
}

const INT8_OID = 20;

/**
 * int8 columns hold minor units, ids and counters. pg reads them as strings and PGlite as
 * numbers or bigints; both are normalised here to a JavaScript number, refusing values a
 * number cannot hold exactly.
 */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} exceeds the safe integer range`);
  return n;
}

pg.types.setTypeParser(INT8_OID, parseInt8);

/**
 * PostgreSQL settings of the embedded database. PGlite runs one backend inside the process's
 * WebAssembly memory, which grows and never shrinks: PostgreSQL's default 128 MB of shared buffers
 * (with 4 MB of WAL buffers), sized for a server of many connections, made most of the idle
 * server's resident memory. 16 MB keeps it under 250 MiB for about a fifth more CPU per basket
 * (docs/decisions.md, docs/performance.md); the operating system's file cache serves the rest.
 */
const PGLITE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  maintenance_work_mem: '16MB',
  temp_buffers: '2MB',
};

const PGLITE_START_PARAMS = [
  ...PGlite.defaultStartParams,
  ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];

/**
 * Creates a new embedded database (initdb) in a short-lived child process. PGlite runs initdb in
 * a second WebAssembly instance whose memory (some 500 MB) the process keeps after it is done,
 * which would stay in the server's resident set for as long as it runs.
 */
async function initialiseDataDir(dataDir: string): Promise<void> {
  const pglitePath = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script =
    'const { PGlite } = require(process.argv[1]);' +
    'PGlite.create(process.argv[2], { startParams: JSON.parse(process.argv[3]) })' +
    '.then((pg) => pg.close())' +
    '.then(() => process.exit(0), (err) => { process.stderr.write(String(err && err.stack || err) + "\\n"); process.exit(1); });';
  const child = spawn(
    process.execPath,
    ['-e', script, pglitePath, dataDir, JSON.stringify(PGLITE_START_PARAMS)],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) throw new Error(`could not create the embedded database in ${dataDir}: ${stderr}`);
}

export interface OpenOptions {
  databaseUrl: string | null;
  /** Directory of the embedded database; null keeps it in memory. */
  dataDir: string | null;
  poolSize?: number;
  /** A dump of an initialised embedded database to start from (tests). */
  loadDataDir?: Blob;
  /**
   * Called when the lock of the embedded database's directory is lost (its file removed or
   * replaced by hand); the process must stop writing. Default: exit with status 1.
   */
  onLockLost?: (reason: string) => void;
  /** The lock of dataDir, taken already by the caller (a start that refuses before loading much). */
  dataDirLock?: DataDirLock;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 10_000,
    });
    // A connection dropped by the server must not take the process down; the pool replaces it.
    pool.on('error', () => {});
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      kind: 'postgres',
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      dumpDataDir: () => Promise.reject(new Error('PostgreSQL has no data directory dump')),
      close: () => db.destroy(),
    };
  }
  let dataDir: string | undefined;
  let lock: DataDirLock | null = null;
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    // Before the database is opened: a second process must not even read a directory in use.
    lock = options.dataDirLock ?? lockDataDir(options.dataDir, options.onLockLost ?? exitOnLockLost);
    dataDir = join(options.dataDir, 'pglite');
    if (!options.loadDataDir && !existsSync(join(dataDir, 'PG_VERSION'))) await initialiseDataDir(dataDir);
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dataDir, {
      parsers: { [pgliteTypes.INT8]: parseInt8 },
      startParams: PGLITE_START_PARAMS,
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    });
  } catch (err) {
    lock?.release();
    throw err;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    dumpDataDir: () => pglite.dumpDataDir('none'),
    async close() {
      try {
        await db.destroy();
      } finally {
        lock?.release();
      }
    },
  };
}
