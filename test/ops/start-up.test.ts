import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, startProcess } from '../../bench/lib/server.js';
import { describeBackups, describeDatabase, loggerOptions, startUpLines } from '../../src/ops/start-up.js';

interface LogLine {
  level: number;
  msg: string;
  req?: { url?: string };
}

const INFO = 30;

/**
 * A start on an empty directory unpacks the build's empty cluster (initdb when there is none) and
 * runs every migration through tsx: some 40 s of a two-core machine that runs two other test files
 * beside it, more than 60 s on the slowest one measured (docs/decisions.md, "Tests").
 */
const START_MS = 120_000;
/** How long a start may take to be ready and to log its operator token: the test's time, less a margin. */
const READY_MS = START_MS - 10_000;

describe('start-up lines and logs of a started server', { timeout: START_MS }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'punchcard-start-up-'));
  const running: RunningServer[] = [];
  afterAll(async () => {
    for (const s of running) await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // The first start runs the sources through tsx, as `npm run dev` does; the later ones the compiled
  // build, as `npm start` does (tsx loads every source module again, some seconds of CPU per start).
  const start = async (env: Record<string, string>, how: 'sources' | 'build' = 'build') => {
    const args = how === 'sources' ? ['--import', 'tsx', 'src/server.ts'] : ['dist/server.js'];
    // The start's own allowance, not the helper's 60 s default: the first one makes the database.
    const s = await startProcess(args, env, { captureLines: true, readyTimeoutMs: READY_MS });
    running.push(s);
    await s.waitForLine('Operator token:', READY_MS);
    return s;
  };
  const logLines = (s: RunningServer): LogLine[] =>
    s.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);

  it('the first start says where it listens, where /docs is, which database and that it made the token', async () => {
    const s = await start({ DATA_DIR: dataDir, ADMIN_TOKEN: '', LOG_LEVEL: 'info' }, 'sources');
    // stdout is a pipe here: one JSON object per log line, and the token printed once in plain text.
    const msgs = logLines(s).map((l) => l.msg);
    expect(msgs).toContain(`Punchcard listening on ${s.baseUrl}`);
    expect(msgs).toContain(`API reference: ${s.baseUrl}/docs (OpenAPI document: ${s.baseUrl}/openapi.json)`);
    expect(msgs).toContain(`Database: embedded PostgreSQL (PGlite) in ${join(dataDir, 'pglite')}`);
    expect(msgs).toContain(
      'Operator token: made now, on the first start; printed above once, only its hash is kept',
    );
    expect(msgs).toContain(
      'Backups: none written on a schedule; set BACKUP_DIR for daily ones, or take one with GET /api/admin/v1/backup',
    );
    const token = s.lines.find((l) => l.startsWith('Punchcard operator token'))?.split(': ')[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const admin = await fetch(`${s.baseUrl}/api/admin/v1/devKeys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Till vendor' }),
    });
    expect(admin.status).toBe(201);

    // Health probes and scrapes are not logged at info; other requests are (an unknown path of plain
    // words is logged as it is, see the request log's redaction).
    for (const path of ['/healthz', '/readyz', '/metrics', '/unknownPage'])
      await fetch(`${s.baseUrl}${path}`);
    await s.waitForLine('/unknownPage');
    const requestUrls = logLines(s)
      .filter((l) => l.level >= INFO && l.req?.url)
      .map((l) => l.req?.url);
    expect(requestUrls).toContain('/unknownPage');
    for (const probe of ['/healthz', '/readyz', '/metrics']) expect(requestUrls).not.toContain(probe);
    await s.stop();
  });

  it('a later start names the stored token; ADMIN_TOKEN then says it replaces it', async () => {
    const again = await start({ DATA_DIR: dataDir, ADMIN_TOKEN: '', LOG_LEVEL: 'info' });
    expect(logLines(again).map((l) => l.msg)).toContain(
      'Operator token: the one made on the first start (only its hash is kept; set ADMIN_TOKEN to choose one)',
    );
    expect(again.lines.some((l) => l.startsWith('Punchcard operator token'))).toBe(false);
    // The build's server is one bundled file: what goes with the code is found from the package's
    // directory, not from the place of a module (docs/decisions.md, "The server bundled into one file").
    for (const asset of ['portal.css', 'chart.umd.min.js']) {
      const res = await fetch(`${again.baseUrl}/portal/assets/${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.text()).length, asset).toBeGreaterThan(1000);
    }
    await again.stop();
    const replaced = await start({
      DATA_DIR: dataDir,
      ADMIN_TOKEN: 'an-operator-token-0123456789',
      LOG_LEVEL: 'info',
    });
    expect(logLines(replaced).map((l) => l.msg)).toContain(
      'Operator token: from ADMIN_TOKEN; it replaces the token made on an earlier first start, which does not work while ADMIN_TOKEN is set',
    );
    await replaced.stop();
  });
});

describe('the build', () => {
  it("dist/server.js holds the server's own modules bundled, with a source map back to src/; the packages stay apart", () => {
    const bundle = readFileSync('dist/server.js', 'utf8');
    const map = JSON.parse(readFileSync('dist/server.js.map', 'utf8')) as { sources: string[] };
    const own = map.sources.filter((s) => s.startsWith('../src/'));
    expect(own).toContain('../src/server.ts');
    expect(own).toContain('../src/app.ts');
    expect(own.length).toBeGreaterThan(300);
    expect(bundle).not.toMatch(/from ["']\.\.?\//);
    expect(bundle).toMatch(/from ["']fastify["']/);
  });
});

describe('start-up descriptions', () => {
  it('a PostgreSQL database is named by user, host and database, never by password', () => {
    const text = describeDatabase({
      databaseUrl: 'postgres://punch:s3cret%21@db.internal:5433/punchcard?sslmode=require',
      dataDir: '/srv/data',
    });
    expect(text).toBe('PostgreSQL punch@db.internal:5433/punchcard');
    expect(text).not.toContain('s3cret');
  });

  it('ADMIN_TOKEN alone is named as the source', () => {
    const lines = startUpLines(
      { databaseUrl: null, dataDir: '/srv/data', publicBaseUrl: 'https://loyalty.example.com', port: 8080 },
      { address: '0.0.0.0', family: 'IPv4', port: 8080 },
      'environment',
    ).map((l) => l.msg);
    expect(lines).toEqual([
      'API reference: https://loyalty.example.com/docs (OpenAPI document: https://loyalty.example.com/openapi.json)',
      'Database: embedded PostgreSQL (PGlite) in /srv/data/pglite',
      'Operator token: from ADMIN_TOKEN',
      'Backups: none written on a schedule; set BACKUP_DIR for daily ones, or take one with GET /api/admin/v1/backup',
    ]);
  });

  it("the server's own backups are named with their interval, directory and count; PostgreSQL has no line", () => {
    const at = (backupEveryMinutes: number) =>
      describeBackups({ backupDir: '/srv/backups', backupEveryMinutes, backupKeep: 14 });
    expect(at(1440)).toBe('every day into /srv/backups, the newest 14 kept');
    expect(at(2880)).toBe('every 2 days into /srv/backups, the newest 14 kept');
    expect(at(360)).toBe('every 6 hours into /srv/backups, the newest 14 kept');
    expect(at(90)).toBe('every 90 minutes into /srv/backups, the newest 14 kept');
    const onPostgres = startUpLines(
      {
        databaseUrl: 'postgres://app@db/punchcard',
        dataDir: '/srv/data',
        publicBaseUrl: 'http://x',
        port: 1,
      },
      null,
      'environment',
    );
    expect(onPostgres.map((l) => l.msg).filter((m) => m.startsWith('Backups'))).toEqual([]);
  });

  it('logs are pretty on a terminal and JSON lines otherwise', () => {
    expect(loggerOptions('info', false)).toEqual({ level: 'info' });
    expect(loggerOptions('debug', true)).toMatchObject({
      level: 'debug',
      transport: { target: 'pino-pretty' },
    });
  });
});
