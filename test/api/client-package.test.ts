import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient, CheckoutClient } from '../../clients/typescript/src/index.js';
import { ADMIN_TOKEN, type TestApp, databases, startApp } from '../support/harness.js';

/**
 * A port for the example's receiver, which listens where PORT says: one below the range the system
 * hands out to outgoing connections and to listeners on port 0 (Linux's ip_local_port_range, 32768
 * up by default), so that no socket of the tests running beside it can hold it. A port drawn from
 * 20,000 to 40,000 was once taken by such a socket (EADDRINUSE).
 */
function portOutsideEphemeralRange(): number {
  let start = 32_768;
  try {
    start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    // Not Linux: its default.
  }
  const low = 10_000;
  if (!(start > low)) start = 32_768;
  return low + Math.floor(Math.random() * Math.max(1, start - low));
}

const run = promisify(execFile);
const PACKAGE = resolve('clients/typescript');

/** The ```ts blocks of the package's README, in order. */
function readmeExamples(): string[] {
  const text = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

/**
 * The package as an integrator gets it: packed with `npm pack` (which builds it), installed from the
 * tarball into an empty project without network, its README's examples compiled with strict settings.
 */
describe('the client package, installed from its tarball', () => {
  let project: string;
  let examples: string[];

  beforeAll(async () => {
    mkdirSync(resolve('.test-cache'), { recursive: true });
    project = mkdtempSync(join(resolve('.test-cache'), 'client-package-'));
    const packed = join(project, 'packed');
    mkdirSync(packed);
    await run('npm', ['pack', '--pack-destination', packed, '--silent'], { cwd: PACKAGE, timeout: 300_000 });
    const tarball = readdirSync(packed).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack wrote no tarball');
    const app = join(project, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
    await run(
      'npm',
      ['install', join(packed, tarball), '--offline', '--no-audit', '--no-fund', '--ignore-scripts'],
      { cwd: app, timeout: 120_000 },
    );
    examples = readmeExamples();
    examples.forEach((code, i) => writeFileSync(join(app, `example-${i + 1}.ts`), code));
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          outDir: 'out',
          typeRoots: [resolve('node_modules/@types')],
          types: ['node'],
        },
        include: ['*.ts'],
      }),
    );
  }, 420_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('the tarball holds the built package with the generated SDK, and no sources or tests', () => {
    const installed = join(project, 'app/node_modules/@punchcard/client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      types: string;
    };
    expect(manifest.types).toBe('./dist/index.d.ts');
    expect(readdirSync(join(installed, 'dist/generated'))).toEqual(
      expect.arrayContaining(['sdk.gen.js', 'sdk.gen.d.ts', 'types.gen.d.ts']),
    );
    expect(readdirSync(installed).sort()).toEqual(['README.md', 'dist', 'package.json']);
    expect(readdirSync(join(installed, 'dist'))).not.toContain('cli');
  });

  it("the README's examples compile against the installed package (strict, library types checked)", async () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
    const tsc = resolve('node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', join(project, 'app')], { timeout: 120_000 }).catch(
      (err: { stdout?: string }) => ({ stdout: err.stdout ?? String(err) }),
    );
    expect(result.stdout).toBe('');
  }, 180_000);

  describe.each(databases)("the README's examples run against a live server on %s", (kind) => {
    let t: TestApp;
    let baseUrl: string;
    const children: ChildProcess[] = [];
    const example = (n: number, env: Record<string, string> = {}) =>
      run(process.execPath, [join(project, `app/out/example-${n}.js`)], {
        timeout: 120_000,
        env: { ...process.env, PUNCHCARD_BASE_URL: baseUrl, PUNCHCARD_ADMIN_TOKEN: ADMIN_TOKEN, ...env },
      });

    beforeAll(async () => {
      t = await startApp(kind, { webhookAllowPrivate: true, outboxPollMs: 20 });
      // The examples sign and check webhooks with their own process's clock, the machine's: the
      // app starts there too, whatever TEST_CLOCK_START says.
      t.clock.ms = Date.now();
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      for (const child of children) child.kill();
      await t?.close();
    });

    it('a till: registration, a basket, its grant with the SecurityToken, a V2-signed top-up of a gift card', async () => {
      const { stdout } = await example(1);
      expect(stdout.trim()).toBe('0 true 10');
    });

    it('a web shop: a top-up, a signed order paid from the balance, its refund', async () => {
      const { stdout } = await example(2);
      // 7.80 of the 20.00 paid, then given back.
      expect(stdout.trim()).toBe('780 1220 refunded 2000');
    });

    it('a webhook receiver verifies a real delivery', async () => {
      const admin = new AdminClient({ baseUrl, token: ADMIN_TOKEN });
      const merchant = `hooks-${kind}-${Date.now()}`;
      await admin.createMerchant({ serviceUserName: merchant, displayName: 'Hooks', currency: 'EUR' });
      const card = `CARD-${merchant}`;
      await admin.linkCard((await admin.createProfile(merchant, {})).id, { tokenId: card, tokenType: 0 });
      const credentials = await admin.createCheckoutClient(merchant, 'Web shop');
      const shop = new CheckoutClient({ baseUrl, ...credentials });

      const port = portOutsideEphemeralRange();
      const hook = await shop.createWebhook({
        url: `http://127.0.0.1:${port}/hooks`,
        event: 'transaction.status.changed',
      });
      const receiver = spawn(process.execPath, [join(project, 'app/out/example-3.js')], {
        env: { ...process.env, PORT: String(port), PUNCHCARD_WEBHOOK_SECRET: hook.secret },
      });
      children.push(receiver);
      let printed = '';
      let complaints = '';
      receiver.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
      receiver.stderr.on('data', (chunk: Buffer) => (complaints += chunk.toString('utf8')));
      await new Promise((r) => setTimeout(r, 500));

      await shop.topUp(card, { amount: 1500, currency: 'EUR' });
      const end = Date.now() + 15_000;
      while (!printed.includes('\n') && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 50));
        t.clock.advance(50);
      }
      expect(complaints).toBe('');
      expect(printed).toMatch(/^msg_\S+ top_up completed 1500\n$/);
    }, 30_000);
  });
});
