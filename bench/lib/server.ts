import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  return {
    kind,
    env: { DATABASE_URL: url, DATA_DIR: mkdtempSync(join(tmpdir(), 'punchcard-bench-')) },
    url,
    name,
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface RunningServer {
  readonly baseUrl: string;
  readonly pid: number;
  /** Largest resident set size seen by the sampler, in MiB. */
  peakRssMiB(): number;
  /** The kernel's high-water mark of the resident set (VmHWM), in MiB. */
  hwmMiB(): number;
  resetPeak(): void;
  stop(): Promise<void>;
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

let nextPort = 19100 + (process.pid % 500);

/**
 * Starts a script as a child process (compiled service or a TypeScript bench server through tsx)
 * and waits until it answers `readyPath`.
 */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  readyPath = '/readyz',
): Promise<RunningServer> {
  const port = nextPort++;
  const child: ChildProcess = spawn(process.execPath, args, {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      NODE_ENV: 'production',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the server');
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${baseUrl}${readyPath}`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('server did not become ready in 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, readStatusKiB(pid, 'VmRSS'));
  }, 100);
  sampler.unref();
  return {
    baseUrl,
    pid,
    peakRssMiB: () => Math.max(peak, readStatusKiB(pid, 'VmRSS')) / 1024,
    hwmMiB: () => readStatusKiB(pid, 'VmHWM') / 1024,
    resetPeak: () => {
      peak = 0;
    },
    async stop() {
      clearInterval(sampler);
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The service as an operator runs it: the compiled build (`npm run build` first). */
export function startService(env: Record<string, string>): Promise<RunningServer> {
  return startProcess(['dist/server.js'], env);
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

/** CPU time used so far by the PostgreSQL backends serving one database, in milliseconds. */
export function databaseCpuMs(databaseName: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('postgres:') && cmdline.includes(` ${databaseName} `))
        total += cpuMs(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}
