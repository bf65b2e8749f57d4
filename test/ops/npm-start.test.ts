import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/server.js';
import { type ServiceDatabase, serviceDatabase } from '../support/child-service.js';

/**
 * `npm start`, the README's first command, run as a person runs it: it serves on the embedded
 * database, and the server gets the C library's settings the start script names
 * (docs/decisions.md, "Starting and running it"). Its DATA_DIR holds the run's migrated embedded
 * database, as on every start after the first; the first start on an empty directory (the build's
 * empty cluster unpacked, and the migrations) is proven in start-up.test.ts.
 */
describe('npm start', () => {
  let data: ServiceDatabase | undefined;
  let npm: ChildProcess | undefined;
  afterAll(async () => {
    if (npm?.pid !== undefined && npm.exitCode === null) {
      const exited = new Promise((resolve) => npm?.once('exit', resolve));
      process.kill(-npm.pid, 'SIGTERM');
      await exited;
    }
    await data?.drop();
  });

  it('serves the embedded database from a process whose glibc maps large blocks on their own, as huge pages where it can', async () => {
    const port = await freePort();
    data = await serviceDatabase('pglite', 'npm-start');
    // The variables come from the start script alone, not from the environment the tests run in.
    const { MALLOC_MMAP_THRESHOLD_: _inherited, GLIBC_TUNABLES: _tunables, ...inherited } = process.env;
    npm = spawn('npm', ['start'], {
      env: { ...inherited, PORT: String(port), HOST: '127.0.0.1', ...data.env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    const listening = await new Promise<{ pid: number }>((resolve, reject) => {
      let text = '';
      npm?.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const line = text.split('\n').find((l) => l.includes('Punchcard listening on'));
        if (line !== undefined) resolve(JSON.parse(line) as { pid: number });
      });
      npm?.once('exit', (code) => reject(new Error(`npm start ended (${code}) before listening:\n${text}`)));
    });

    const health = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(health.status).toBe(200);
    const environment = readFileSync(`/proc/${listening.pid}/environ`, 'utf8').split('\0');
    expect(environment).toContain('MALLOC_MMAP_THRESHOLD_=131072');
    expect(environment).toContain('GLIBC_TUNABLES=glibc.malloc.hugetlb=1');
    const command = readFileSync(`/proc/${listening.pid}/cmdline`, 'utf8').split('\0');
    expect(command.slice(1, 2)).toEqual(['dist/server.js']);
  }, 120_000);
});
