import type { EventEmitter } from 'node:events';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { CODE_EXTENSION, CODE_ROOT } from '../shared/code-root.js';
import { CONNECT_LIMIT_MS, GIVEN_UP, answerLimitMs } from './connection-limits.js';
import { CopyClient, copyingPGlite } from './copy-in.js';
import { type DataDirLock, exitOnLockLost, lockDataDir } from './data-dir-lock.js';
import { initdbTemplate, readInitdbTemplate } from './initdb-template.js';
import { pendingMigrations } from './migrate.js';
import { PipelinedConnection } from './pipelined-connection.js';
import type { DB } from './schema.js';
import { awaitSetUpDone } from './set-up-lock.js';

/**
 * One factory for both databases. The schema, the migrations and every query are the same
 * PostgreSQL dialect; only the driver differs.
 */
export interface Database {
  readonly db: Kysely<DB>;
  /**
   * Reads that decide no money (reports, dashboards, the consumer's pages): a replica when
   * DATABASE_READ_URL names one, else the same handle as `db`. It may lag behind `db`.
   */
  readonly read: Kysely<DB>;
  readonly kind: 'pglite' | 'postgres';
  /**
   * A new connection of its own, outside the pool, that sends statements one behind the other
   * without waiting for the answers (PostgreSQL); null on the embedded database, whose one
   * connection runs one statement at a time anyway. Closed with the database.
   */
  pipeline(): PipelinedConnection | null;
  /** Whether `read` is a replica of its own (its figures may lag). */
  readonly readsReplica: boolean;
  /**
   * Pool figures for /metrics (PGlite has one connection); `givenUp`: connections given up since
   * the start because a statement sent on them was not answered within its limit, the pools' and
   * the writers' own (docs/decisions.md, "A database that stops answering").
   */
  poolStats(): { total: number; idle: number; waiting: number; givenUp: number };
  /** A dump of the embedded database (tests start from it); PostgreSQL has none. */
  dumpDataDir(): Promise<Blob>;
  /**
   * A backup of the embedded database: its data directory as a tar archive, taken while no
   * statement runs, after a checkpoint (docs/decisions.md, "Backups of the embedded database");
   * null on PostgreSQL, which is backed up with its own tools.
   */
  backup(): Promise<Blob | null>;
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
  // A cluster unpacked from a dump (initdb-template.ts) starts with a recovery, whose progress
  // timer (10 s) PGlite leaves armed after the start: it kept a finished process alive.
  log_startup_progress_interval: '0',
};

const PGLITE_START_PARAMS = [
  ...PGlite.defaultStartParams,
  ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
];

/**
 * Flags of this process that a child needs to load the service's modules: a loader such as tsx
 * when the service runs from its sources (tests, development); none for the compiled build.
 */
function loaderFlags(script: string): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    if (/^--(import|require|loader|experimental-loader)$/.test(flag) && argv[i + 1] !== undefined) {
      out.push(flag, argv[i + 1] as string);
      i++;
    } else if (/^--(import|require|loader|experimental-loader)=/.test(flag)) out.push(flag);
  }
  // Sources run by a test runner that loads TypeScript itself: the child loads them with tsx.
  if (script.endsWith('.ts') && !out.some((f) => f.includes('tsx'))) out.push('--import', 'tsx');
  return out;
}

/**
 * Creates the embedded database when the directory is new (from `template`, the build's empty
 * cluster, or by initdb when it is null) and applies the pending migrations, in a short-lived
 * child process (embedded-setup.ts): PGlite runs initdb in a second WebAssembly instance whose
 * memory (some 500 MB) the process keeps after it is done, and the migrations grow the instance
 * that runs them; either would stay in the server's resident set for as long as it runs.
 */
async function setUpDataDir(dataDir: string, place: string, template: string | null): Promise<void> {
  const script = join(CODE_ROOT, 'store', `embedded-setup${CODE_EXTENSION}`);
  const child = spawn(
    process.execPath,
    [
      ...loaderFlags(script),
      script,
      dataDir,
      JSON.stringify(PGLITE_START_PARAMS),
      place,
      String(process.pid),
      ...(template === null ? [] : [template]),
    ],
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
  if (code !== 0) throw new Error(`could not set up the embedded database in ${dataDir}: ${stderr}`);
}

/**
 * A new directory made whole or not at all: set up beside its place (`<dir>.new`) and moved there
 * once the child is done, so that a first start that fails or is killed while unpacking the
 * cluster or migrating leaves nothing a later start would take for a database. A directory at its
 * place without PG_VERSION holds no database (a cluster that ever held data has one): an
 * interrupted initdb left it, and it goes, as does what an interrupted set-up left beside it.
 */
async function setUpNewDataDir(dataDir: string, template: string | null): Promise<void> {
  const beside = `${dataDir}.new`;
  rmSync(beside, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
  try {
    await setUpDataDir(beside, dataDir, template);
  } catch (err) {
    rmSync(beside, { recursive: true, force: true });
    throw err;
  }
  renameSync(beside, dataDir);
}

export interface OpenOptions {
  databaseUrl: string | null;
  /** A replica for `Database.read`; null or absent: `read` is `db`. */
  databaseReadUrl?: string | null;
  /**
   * false behind a pooler in transaction mode: no connection of its own with named statements
   * (`pipeline()` answers null). Default true.
   */
  pipelines?: boolean;
  /**
   * Where the pipelined connection goes when it should not take DATABASE_URL's way: straight to
   * PostgreSQL past a pooler in transaction mode (it is one connection per process, and keeps its
   * named statements). Absent: DATABASE_URL.
   */
  pipelineUrl?: string | null;
  /** Directory of the embedded database; null keeps it in memory. */
  dataDir: string | null;
  poolSize?: number;
  /**
   * PostgreSQL: the longest one statement of the pools may run, lock waits included (the
   * connection's statement_timeout); 0 or absent: no limit (the command-line tools, the tests).
   * The embedded database has no other session to wait for, and no limit.
   */
  statementTimeoutMs?: number;
  /**
   * PostgreSQL: how long a statement may wait for its answer before its connection is given up;
   * default the statement's limit and ANSWER_MARGIN_MS, none without a limit. Other values only
   * for tests of a database that stops answering.
   */
  answerLimitMs?: number;
  /**
   * PostgreSQL: whether each new connection of the pools is given the service's own session
   * settings (`jit = off`, and the statement's limit when there is one) before its first query.
   * false behind a pooler in transaction mode, whose server connections serve many clients: there
   * the operator sets them on the database (docs/decisions.md, "No JIT compilation for the
   * service's statements"). Default true.
   */
  sessionSettings?: boolean;
  /** A dump of an initialised embedded database to start from (tests). */
  loadDataDir?: Blob;
  /**
   * The empty cluster a new data directory is made from (initdb-template.ts); null: initdb.
   * Default: the build's, when there is one for the installed PGlite.
   */
  initdbTemplate?: string | null;
  /**
   * Called when the lock of the embedded database's directory is lost (its file removed or
   * replaced by hand); the process must stop writing. Default: exit with status 1.
   */
  onLockLost?: (reason: string) => void;
  /** The lock of dataDir, taken already by the caller (a start that refuses before loading much). */
  dataDirLock?: DataDirLock;
}

/**
 * The service's session settings, set on each new connection of a pool before its first query with
 * `SET` rather than as start-up parameters, which a pooler in session mode refuses: no JIT
 * compilation (docs/decisions.md, "No JIT compilation for the service's statements") and the
 * statement's limit when `ms` is above 0 ("A statement's limit").
 */
function sessionSettings(ms: number): string[] {
  return ['SET jit = off', ...(ms > 0 ? [`SET statement_timeout = ${Math.floor(ms)}`] : [])];
}

/**
 * A pool of connections to PostgreSQL. `answerLimitMs` (0: none): how long a statement may wait
 * for its answer before its connection is given up (CopyClient), so that a database or a network
 * that stops answering, without ever closing the connection, fails the statement instead of holding
 * its request for as long as the operating system keeps the connection (docs/decisions.md, "A
 * database that stops answering"). `settings`: the statements each new connection runs before the
 * pool hands it out.
 */
function postgresPool(
  url: string,
  max: number,
  answerLimitMs: number,
  onGiveUp: () => void,
  settings: readonly string[],
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    // Runs COPY ... FROM STDIN for a store that gives it a CopyData (copy-in.ts).
    Client: CopyClient,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECT_LIMIT_MS,
    ...(answerLimitMs > 0 ? { query_timeout: answerLimitMs } : {}),
    // Each new connection, before the pool hands it out. The pool listens only to its idle
    // connections: one the server ends while the service holds it (between two statements of a
    // transaction) would raise an error nobody hears, and that ends the process. Heard here, it
    // fails the statement after it, and the pool drops it when it comes back (docs/decisions.md,
    // "A database connection lost while in use"). A connection given up for a statement not
    // answered in time is counted (connection-limits.ts). The session settings are set here, by
    // the pool, so that a connection ended before they are set is dropped by the pool and its
    // request gets the error; the query builder's hook for them never gave such a connection back
    // ("Session settings set by the pool"). pg-pool waits for the promise and fails the connect
    // with its rejection (`newClient`); its types say void.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    onConnect: async (client: pg.ClientBase) => {
      client.on('error', () => {});
      (client as EventEmitter).on(GIVEN_UP, onGiveUp);
      for (const setting of settings) await client.query(setting);
    },
  });
  // A connection dropped by the server must not take the process down; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) {
    const settings =
      options.sessionSettings === false ? [] : sessionSettings(options.statementTimeoutMs ?? 0);
    // The pool's statements and the writers' batches alike: answered within the statement's limit
    // and a margin, or their connection is given up.
    const answerLimit = options.answerLimitMs ?? answerLimitMs(options.statementTimeoutMs ?? 0);
    let givenUp = 0;
    const onGiveUp = () => void (givenUp += 1);
    const pool = postgresPool(options.databaseUrl, options.poolSize ?? 10, answerLimit, onGiveUp, settings);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    const readUrl = options.databaseReadUrl ?? null;
    const read = readUrl
      ? new Kysely<DB>({
          dialect: new PostgresDialect({
            pool: postgresPool(readUrl, options.poolSize ?? 10, answerLimit, onGiveUp, settings),
          }),
        })
      : db;
    const pipelines: PipelinedConnection[] = [];
    const pipelineUrl = options.pipelineUrl ?? options.databaseUrl;
    const pipelined = options.pipelines ?? true;
    return {
      db,
      read,
      readsReplica: read !== db,
      kind: 'postgres',
      pipeline() {
        if (!pipelined) return null;
        const pipeline = new PipelinedConnection(pipelineUrl, { answerLimitMs: answerLimit, onGiveUp });
        pipelines.push(pipeline);
        return pipeline;
      },
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        givenUp,
      }),
      dumpDataDir: () => Promise.reject(new Error('PostgreSQL has no data directory dump')),
      backup: async () => null,
      async close() {
        await Promise.all(pipelines.map((p) => p.close()));
        if (read !== db) await read.destroy();
        await db.destroy();
      },
    };
  }
  let dataDir: string | undefined;
  let lock: DataDirLock | null = null;
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    // Before the database is opened: a second process must not even read a directory in use.
    lock = options.dataDirLock ?? lockDataDir(options.dataDir, options.onLockLost ?? exitOnLockLost);
    dataDir = join(options.dataDir, 'pglite');
  }
  const template = options.initdbTemplate === undefined ? initdbTemplate() : options.initdbTemplate;
  // In memory, the empty cluster is unpacked here; a new directory gets it from the child below.
  const load =
    options.loadDataDir ??
    (dataDir === undefined && template !== null ? readInitdbTemplate(template) : undefined);
  const open = () =>
    PGlite.create(dataDir, {
      parsers: { [pgliteTypes.INT8]: parseInt8 },
      startParams: PGLITE_START_PARAMS,
      ...(load ? { loadDataDir: load } : {}),
    });
  let pglite: PGlite;
  try {
    // A set-up child a killed start left running ends first (set-up-lock.ts).
    if (dataDir) await awaitSetUpDone(dataDir);
    if (dataDir && !load && !existsSync(join(dataDir, 'PG_VERSION')))
      await setUpNewDataDir(dataDir, template);
    pglite = await open();
    // An outdated directory (made by an earlier version) is migrated by a child process as well.
    if (dataDir && (await pendingMigrations(pglite)).length > 0) {
      await pglite.close();
      await setUpDataDir(dataDir, dataDir, null);
      pglite = await open();
    }
  } catch (err) {
    lock?.release();
    throw err;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(copyingPGlite(pglite)) });
  return {
    db,
    read: db,
    readsReplica: false,
    kind: 'pglite',
    pipeline: () => null,
    poolStats: () => ({ total: 1, idle: 1, waiting: 0, givenUp: 0 }),
    dumpDataDir: () => pglite.dumpDataDir('none'),
    // The one connection held throughout: no transaction is open and none starts while the files
    // are read; the checkpoint writes every committed change into them first.
    backup: () =>
      db.connection().execute(async (conn) => {
        await conn.executeQuery(CompiledQuery.raw('CHECKPOINT'));
        return pglite.dumpDataDir('none');
      }),
    async close() {
      try {
        await db.destroy();
      } finally {
        lock?.release();
      }
    },
  };
}
