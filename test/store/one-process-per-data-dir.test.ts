import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_ADMIN_TOKEN, type RunningServer } from '../../bench/lib/server.js';
import { type ServiceDatabase, serviceDatabase, startService } from '../support/child-service.js';

interface Exit {
  code: number | null;
  stderr: string;
  stdout: string;
  elapsedMs: number;
}

/**
 * Runs a script of the service to its end (or kills it after `limitMs`, which then fails the test):
 * a compiled one (dist/), or one of scripts/ through tsx.
 */
function runToExit(args: string[], env: Record<string, string>, limitMs = 60_000): Promise<Exit> {
  const started = Date.now();
  return new Promise((resolveExit) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ADMIN_TOKEN: BENCH_ADMIN_TOKEN, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolveExit({ code, stderr, stdout, elapsedMs: Date.now() - started });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolvePort) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const admin = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' };

async function createMerchant(baseUrl: string, serviceUserName: string): Promise<number> {
  const res = await fetch(`${baseUrl}/api/admin/v1/merchants`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ serviceUserName, displayName: serviceUserName, currency: 'EUR' }),
  });
  return res.status;
}

async function merchantExists(baseUrl: string, serviceUserName: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/api/admin/v1/merchants/${serviceUserName}/trackingUnits`, {
    headers: admin,
  });
  if (res.status !== 200 && res.status !== 404) throw new Error(`unexpected ${res.status}`);
  return res.status === 200;
}

const tsx = (script: string) => ['--import', 'tsx', resolve(script)];

describe('one process per embedded database (PGlite only: PostgreSQL takes no lock)', () => {
  let database: ServiceDatabase | null = null;
  let env: Record<string, string> = {};
  let dir = '';
  // Each test takes the server the one before left running (a start costs seconds of CPU), or starts one.
  let server: RunningServer | null = null;
  beforeAll(async () => {
    database = await serviceDatabase('pglite', 'one-process');
    env = database.env;
    dir = env.DATA_DIR ?? '';
  });
  afterAll(async () => {
    await server?.kill();
    await database?.drop();
  });

  it('a second server on the same DATA_DIR exits non-zero naming the directory and the holder; the first keeps serving and loses nothing', async () => {
    server = await startService(env);
    expect(await createMerchant(server.baseUrl, 'before-second')).toBe(201);

    const second = await runToExit([resolve('dist/server.js')], { ...env, PORT: String(await freePort()) });
    expect(second.code).not.toBe(0);
    expect(second.code).not.toBeNull();
    expect(second.stderr).toContain(`the embedded database in ${dir} is in use by process ${server.pid}`);
    expect(second.stderr).toContain(`on host ${hostname()} since 20`);
    // It stopped before doing anything: no operator token printed, nothing served.
    expect(second.stdout).not.toContain('operator token');
    // Generous for a loaded machine; without the lock the second process never exits at all.
    expect(second.elapsedMs).toBeLessThan(30_000);

    expect(await createMerchant(server.baseUrl, 'after-second')).toBe(201);
    await server.stop();
    server = await startService(env);
    expect(await merchantExists(server.baseUrl, 'before-second')).toBe(true);
    expect(await merchantExists(server.baseUrl, 'after-second')).toBe(true);
    expect(await merchantExists(server.baseUrl, 'never-made')).toBe(false);
  }, 180_000);

  it('the lock of a killed server (SIGKILL) does not block the next start, and its data is there', async () => {
    if (!server) server = await startService(env);
    expect(await createMerchant(server.baseUrl, 'before-kill')).toBe(201);
    await server.kill('SIGKILL');
    const started = Date.now();
    server = await startService(env);
    const elapsedMs = Date.now() - started;
    expect(await merchantExists(server.baseUrl, 'before-kill')).toBe(true);
    // A lock judged only by its age would hold the start back; the dead pid frees it at once.
    expect(elapsedMs).toBeLessThan(60_000);
  }, 180_000);

  it('npm run ledger:verify refuses while the server runs on the directory, and checks once it stopped', async () => {
    if (!server) server = await startService(env);
    const refused = await runToExit(tsx('scripts/ledger-verify.ts'), env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`the embedded database in ${dir} is in use by process ${server.pid}`);
    await server.stop();
    server = null;
    const checked = await runToExit(tsx('scripts/ledger-verify.ts'), env);
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain('ledger:verify: OK');
  }, 180_000);
});

describe('a first start killed while the embedded database is being made', () => {
  let dir = '';
  let server: RunningServer | null = null;
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the next start, at once, is not disturbed by the work the killed start left running: it comes up whole', async () => {
    dir = mkdtempSync(join(tmpdir(), 'punchcard-killed-setup-'));
    const env = { DATA_DIR: dir, ADMIN_TOKEN: BENCH_ADMIN_TOKEN };
    const first = spawn(process.execPath, [resolve('dist/server.js')], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(await freePort()), LOG_LEVEL: 'warn', ...env },
      stdio: 'ignore',
    });
    const exited = new Promise((r) => first.once('exit', r));
    // The database is being made beside its place: the cluster unpacked, the migrations running.
    const made = join(dir, 'pglite.new', 'PG_VERSION');
    for (let waited = 0; !existsSync(made); waited += 10) {
      if (waited > 60_000) throw new Error('the first start never began to make the database');
      await new Promise((r) => setTimeout(r, 10));
    }
    first.kill('SIGKILL');
    await exited;
    server = await startService(env);
    expect(await createMerchant(server.baseUrl, 'after-the-killed-start')).toBe(201);
    await server.stop();
    server = await startService(env);
    expect(await merchantExists(server.baseUrl, 'after-the-killed-start')).toBe(true);
  }, 180_000);
});

describe.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL takes no lock', () => {
  it('two servers on one PostgreSQL database and the same DATA_DIR both start and serve', async () => {
    const database = await serviceDatabase('postgres', 'nolock');
    const dir = mkdtempSync(join(tmpdir(), 'punchcard-pg-nolock-'));
    const env = { ...database.env, DATA_DIR: dir };
    const servers: RunningServer[] = [];
    try {
      servers.push(await startService(env));
      servers.push(await startService(env));
      const [a, b] = servers;
      if (!a || !b) throw new Error('no servers');
      expect(await createMerchant(a.baseUrl, 'on-a')).toBe(201);
      expect(await merchantExists(b.baseUrl, 'on-a')).toBe(true);
    } finally {
      for (const s of servers) await s.stop();
      rmSync(dir, { recursive: true, force: true });
      await database.drop();
    }
  }, 180_000);
});
