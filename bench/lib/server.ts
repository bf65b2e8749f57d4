import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';

export type Kind = 'pglite' | 'postgres';

export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789';
export const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface DatabaseTarget {
  readonly kind: Kind;
  /** Environment for a server on this database. */
  readonly env: Record<string, string>;
  readonly url: string | null;
  /** The PostgreSQL database name (null for the embedded database). */
  readonly name: string | null;
  drop(): Promise<void>;
}

/** A fresh, empty database of the given kind (a new PostgreSQL database, or a temp DATA_DIR). */
export async function freshDatabase(kind: Kind, label: string): Promise<DatabaseTarget> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), `punchcard-bench-${label}-`));
    return {
      kind,
      env: { DATA_DIR: dir },
      url: null,
      name: null,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `punchcard_bench_${label}_${process.pid}_${Date.now()}`
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(POSTGRES_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-bench-'));
  return {
    kind,
    env: { DATABASE_URL: url, DATA_DIR: dir },
    url,
    name,
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RunningServer {
  readonly baseUrl: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Lines the server wrote to stdout (pino JSON), when started with `captureLines`. */
  readonly lines: string[];
  /** Resolves when a captured stdout line contains `text`. */
  waitForLine(text: string, timeoutMs?: number): Promise<string>;
  /** Largest resident set size seen by the sampler, in MiB. */
  peakRssMiB(): number;
  /** The kernel's high-water mark of the resident set (VmHWM), in MiB. */
  hwmMiB(): number;
  resetPeak(): void;
  /** SIGTERM (a graceful stop), SIGKILL if it has not exited after 15 s. */
  stop(): Promise<void>;
  /** Sends the signal (SIGKILL by default: a crash) and waits until the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartOptions {
  /** Path answered with 200 once the server is ready. */
  readonly readyPath?: string;
  /** Keep the stdout lines (for `waitForLine`); otherwise they are read and dropped. */
  readonly captureLines?: boolean;
  /** How long the start may take before it counts as failed; default 60 s. */
  readonly readyTimeoutMs?: number;
}

function readStatusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`${field}:\\s+(\\d+)`).exec(status);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** A port nothing listens on now, chosen by the system. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolvePort(port));
    });
    srv.on('error', reject);
  });
}

/**
 * The variables `npm start` sets before `node dist/server.js` (the C library's settings, which a
 * process cannot give itself once running), so that every process the benchmarks start runs as
 * `npm start` runs the service.
 */
export function npmStartEnvironment(): Record<string, string> {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
  const assignments = /^((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)node\s/.exec(manifest.scripts.start)?.[1] ?? '';
  return Object.fromEntries(
    assignments
      .trim()
      .split(/\s+/)
      .filter((a) => a !== '')
      .map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
  );
}

/**
 * Starts a script as a child process (the compiled service, the service through tsx, or a bench
 * server) and waits until it answers `readyPath`: the one starter of the benchmarks and of the
 * tests that need a real process (a crash, two instances on one database).
 */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  options: StartOptions = {},
): Promise<RunningServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, args, {
    env: {
      ...npmStartEnvironment(),
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      NODE_ENV: 'production',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the server');

  const lines: string[] = [];
  const waiters: { text: string; resolve: (line: string) => void }[] = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    if (!options.captureLines) return;
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      for (let i = waiters.length - 1; i >= 0; i--) {
        const w = waiters[i];
        if (w && line.includes(w.text)) {
          waiters.splice(i, 1);
          w.resolve(line);
        }
      }
    }
  });
  // What the server says on stderr goes on to ours, and its end names the cause of a failed start.
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const baseUrl = `http://127.0.0.1:${port}`;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${stderrTail}`);
    try {
      const res = await fetch(`${baseUrl}${options.readyPath ?? '/readyz'}`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become ready in ${readyTimeoutMs / 1000} s: ${stderrTail}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, readStatusKiB(pid, 'VmRSS'));
  }, 50);
  sampler.unref();
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    baseUrl,
    pid,
    child,
    lines,
    waitForLine: (text, timeoutMs = 120_000) =>
      new Promise((resolveLine, reject) => {
        const found = lines.find((l) => l.includes(text));
        if (found) return resolveLine(found);
        const timer = setTimeout(() => reject(new Error(`no line with "${text}"`)), timeoutMs);
        waiters.push({
          text,
          resolve: (line) => {
            clearTimeout(timer);
            resolveLine(line);
          },
        });
      }),
    peakRssMiB: () => Math.max(peak, readStatusKiB(pid, 'VmRSS')) / 1024,
    hwmMiB: () => readStatusKiB(pid, 'VmHWM') / 1024,
    resetPeak: () => {
      peak = 0;
    },
    async stop() {
      clearInterval(sampler);
      if (!running()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
    async kill(signal = 'SIGKILL') {
      clearInterval(sampler);
      if (running()) child.kill(signal);
      await exited;
    },
  };
}

/**
 * The service as an operator runs it: the compiled build (`npm run build` first).
 * `SERVER_NODE_ARGS` adds Node options to the server child (a CPU profile, `--cpu-prof
 * --cpu-prof-dir=<dir>`, or a heap limit), which NODE_OPTIONS cannot carry.
 */
export function startService(env: Record<string, string>): Promise<RunningServer> {
  const nodeArgs = (process.env.SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  return startProcess([...nodeArgs, 'dist/server.js'], env);
}

/** CPU time (user + system) a process has used so far, in milliseconds. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 10;
  } catch {
    return 0;
  }
}

/** CPU time used so far by each PostgreSQL backend serving one database, in milliseconds, by pid. */
export function databaseCpuMs(databaseName: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('postgres:') && cmdline.includes(` ${databaseName} `))
        byPid.set(Number(entry), cpuMs(Number(entry)));
    } catch {
      // the process ended meanwhile
    }
  }
  return byPid;
}

/**
 * CPU the backends used between two readings: the growth of those seen at the end (all of it for
 * one that started meanwhile). A backend that ended meanwhile (an idle pool connection closed) is
 * left out: subtracting what it had used before would count less than nothing.
 */
function databaseCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** CPU time of a server process and of the database backends serving it, in milliseconds. */
export interface CpuUse {
  server: number;
  database: number;
}

/** Runs `run` and adds to `into` the CPU time the server and its database's backends used meanwhile. */
export async function measuredCpu<T>(
  server: { pid: number },
  databaseName: string | null,
  into: CpuUse,
  run: () => Promise<T>,
): Promise<T> {
  const s0 = cpuMs(server.pid);
  const d0 = databaseName ? databaseCpuMs(databaseName) : new Map<number, number>();
  const result = await run();
  into.server += cpuMs(server.pid) - s0;
  if (databaseName) into.database += databaseCpuBetween(d0, databaseCpuMs(databaseName));
  return result;
}

/** CPU ms per request as a table cell: "server + PostgreSQL", or the server's alone. */
export function cpuCell(c: CpuUse, requests: number): string {
  const per = (ms: number) => (requests > 0 ? ms / requests : 0).toFixed(3);
  return c.database > 0 ? `${per(c.server)} + ${per(c.database)}` : per(c.server);
}

/**
 * What a benchmark row made (databases, servers), taken down whatever happens: the last made
 * first, every step tried even when one before it failed. A step that fails to make its part
 * takes down what was made before it, so a server that does not come up leaves no database or
 * other server behind.
 */
export class Teardown {
  readonly #steps: (() => Promise<void>)[] = [];

  /** `made` once it is made, with `undo` remembered for it. */
  async add<T>(made: Promise<T>, undo: (value: T) => Promise<void>): Promise<T> {
    let value: T;
    try {
      value = await made;
    } catch (err) {
      await this.run().catch(() => undefined);
      throw err;
    }
    this.#steps.push(() => undo(value));
    return value;
  }

  /** Takes down everything added so far; the first failure is thrown after every step has run. */
  async run(): Promise<void> {
    const failures: unknown[] = [];
    for (const step of this.#steps.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}

/** Runs `row` with a Teardown of its own and takes down what it made, however it ends. */
export async function withTeardown<T>(row: (made: Teardown) => Promise<T>): Promise<T> {
  const made = new Teardown();
  let result: T;
  try {
    result = await row(made);
  } catch (err) {
    await made.run().catch(() => undefined);
    throw err;
  }
  await made.run();
  return result;
}

/** A row's service and the one-INSERT baseline beside it, each on a fresh database of `kind`. */
export interface ServiceAndBaseline {
  readonly serviceDb: DatabaseTarget;
  readonly baselineDb: DatabaseTarget;
  readonly service: RunningServer;
  readonly baseline: RunningServer;
}

/** Makes a ServiceAndBaseline, taken down with `made`; `env` adds to each server's environment. */
export async function serviceAndBaseline(
  made: Teardown,
  kind: Kind,
  label: string,
  env: { service?: Record<string, string>; baseline?: Record<string, string> } = {},
): Promise<ServiceAndBaseline> {
  const serviceDb = await made.add(freshDatabase(kind, label), (d) => d.drop());
  const baselineDb = await made.add(freshDatabase(kind, `${label}base`), (d) => d.drop());
  const service = await made.add(startService({ ...serviceDb.env, ...env.service }), (s) => s.stop());
  const baseline = await made.add(
    startProcess(['--import', 'tsx', 'bench/baseline-server.ts'], { ...baselineDb.env, ...env.baseline }),
    (s) => s.stop(),
  );
  return { serviceDb, baselineDb, service, baseline };
}
