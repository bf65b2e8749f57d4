import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AdminClient,
  type Basket,
  type BasketResponse,
  PosClient,
  PunchcardError,
} from '../../clients/typescript/src/index.js';
import { main } from '../../clients/typescript/src/cli/punchcard.js';
import type { SimulateSummary } from '../../clients/typescript/src/cli/simulate.js';
import { ADMIN_TOKEN, type TestApp, databases, startApp } from '../support/harness.js';

const run = promisify(execFile);

const BASKET: Basket = {
  Timestamp: '2026-03-02T12:30:00+01:00',
  HasDiscounts: false,
  CurrencyISO: 'EUR',
  Positions: [
    { PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 3.2 },
    { PositionId: 2, ProductId: '2002', Unit: 1, Amount: 0.245, CurrentGrossPrice: 19.9 },
  ],
};

describe.each(databases)('the TypeScript client and the punchcard command on %s', (kind) => {
  let t: TestApp;
  let baseUrl: string;
  let work: string;

  interface Outcome {
    code: number;
    stdout: string;
    stderr: string;
  }

  /**
   * Runs `npx punchcard ...` as users do: the package's bin in a process of its own. It loads the
   * command's TypeScript sources through tsx, some 2 s of CPU per run, so the tests use it where the
   * process itself is what is proven (stdout holds the answer alone, the exit code) and run the
   * other commands through `punchcard` below.
   */
  const bin = async (...args: string[]): Promise<Outcome> => {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        [resolve('bin/punchcard.js'), '--base-url', baseUrl, '--token', ADMIN_TOKEN, ...args],
        { timeout: 120_000 },
      );
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };

  /** The same command through the bin's `main` in this process, with its stdout, stderr and exit code captured. */
  const punchcard = async (...args: string[]): Promise<Outcome> => {
    const outcome: Outcome = { code: 0, stdout: '', stderr: '' };
    await main(['node', 'punchcard', '--base-url', baseUrl, '--token', ADMIN_TOKEN, ...args], {
      writeOut: (text) => {
        outcome.stdout += text;
      },
      writeErr: (text) => {
        outcome.stderr += text;
      },
      errIsTTY: false,
      setExitCode: (code) => {
        outcome.code = code;
      },
    });
    return outcome;
  };

  beforeAll(async () => {
    t = await startApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    work = mkdtempSync(join(resolve('.test-cache'), 'cli-'));
  });
  afterAll(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the client computes SecurityTokens, sends gzip bodies and answers JSON or XML as chosen', async () => {
    const admin = new AdminClient({ baseUrl, token: ADMIN_TOKEN });
    const user = `client-${kind}-${Date.now()}`;
    const { devKey } = await admin.createDevKey('Till vendor');
    await admin.createMerchant({ serviceUserName: user, displayName: 'Café', currency: 'EUR' });
    const { brandId } = await admin.createBrand(user, 'Café');
    await admin.createCampaign(user, {
      name: 'Coffee 20%',
      type: 'product',
      discount: { percent: 20 },
      products: [{ plu: '1001' }],
    });

    const encodings: (string | null)[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      if (input instanceof Request) encodings.push(input.headers.get('content-encoding'));
      return fetch(input, init);
    };
    const pos = new PosClient({ baseUrl, devKey, gzip: true, fetch: recordingFetch });
    const outlet = await pos.createOutlet(user, brandId, { Name: 'Main street' });
    const terminal = await pos.registerTerminal({
      serviceUserName: user,
      outletId: outlet.Id,
      instanceName: 'Till 1',
    });
    await admin.activateTerminal(terminal.trackingUnitId);
    const till = pos.forTerminal(terminal);

    const upload: BasketResponse = await till.uploadBasket('C-1', BASKET);
    expect(upload.Rewards).toEqual([
      expect.objectContaining({ ProductId: '1001', GrossRewardValue: 1.28, Name: 'Coffee 20%' }),
    ]);
    expect(encodings).toContain('gzip');

    const grant = await till.grantBasket('C-1');
    expect(grant).toMatchObject({ BasketId: 'C-1', Granted: true });
    const returned = await till.returnBasket('C-1', {
      ReturnId: 'RT-1',
      Positions: [{ PositionId: 1, Amount: 1 }],
    });
    expect(returned.ReturnId).toBe('RT-1');

    const xmlTill = new PosClient({ baseUrl, devKey, terminal, format: 'xml' });
    const xml: string = await xmlTill.uploadBasket('C-2', BASKET);
    expect(xml).toMatch(/^<\?xml[^>]*>\s*<BasketResponse>/);
    expect(await xmlTill.grantBasket('C-2')).toContain('<Granted>true</Granted>');

    await till.registerToken('GIFT-1', 'gift');
    expect(await till.addBalance('GIFT-1', '10.00')).toMatchObject({ TokenId: 'GIFT-1', Balance: 10 });
    expect(await till.withdrawBalance('GIFT-1', '2.50')).toMatchObject({ Balance: 7.5 });

    // Refusals carry the catalog's ErrorId in both formats.
    await expect(till.grantBasket('nothing')).rejects.toMatchObject({ status: 404, errorId: 11011 });
    await expect(xmlTill.grantBasket('nothing')).rejects.toMatchObject({ status: 404, errorId: 11011 });
    const wrongSecret = pos.forTerminal({ ...terminal, checksumSecret: '0'.repeat(32) });
    const refused = await wrongSecret.grantBasket('C-1').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PunchcardError);
    expect(refused).toMatchObject({ status: 401, errorId: 1003 });
  });

  it('punchcard admin does the operator tasks of the README without curl', async () => {
    const user = `cli-${kind}-${Date.now()}`;
    const devKey = await punchcard('admin', '--field', 'devKey', 'devkey', 'Till vendor');
    expect(devKey.code).toBe(0);
    expect(devKey.stdout.trim()).toMatch(/^\S{16,}$/);
    expect((await punchcard('admin', 'merchant', user, '--display-name', 'Café Müller')).code).toBe(0);
    const brand = await punchcard('admin', '--field', 'brandId', 'brand', user, 'Café Müller');
    expect(brand.stdout.trim()).toMatch(/^\d+$/);

    const campaigns = join(work, `campaigns-${kind}.json`);
    writeFileSync(
      campaigns,
      JSON.stringify([
        { name: 'Coffee 20%', type: 'product', discount: { percent: 20 }, products: [{ plu: '1001' }] },
        { name: '2 off from 25', type: 'bill', minTotal: 25, discount: { amount: 2 } },
      ]),
    );
    const created = await punchcard('--json', 'admin', 'campaigns', user, campaigns);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual([
      { id: expect.any(Number), version: 1 },
      { id: expect.any(Number), version: 1 },
    ]);
    const schemes = join(work, `schemes-${kind}.json`);
    writeFileSync(
      schemes,
      JSON.stringify({
        name: 'Coffee card',
        earn: [{ per: 'unit', products: [{ plu: '1001' }], points: 1 }],
        reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
      }),
    );
    expect((await punchcard('admin', 'schemes', user, schemes)).code).toBe(0);
    const profile = await punchcard(
      'admin',
      'profile',
      user,
      '--name',
      'Ada Muster',
      '--card',
      `CARD-${user}`,
    );
    expect(profile.code).toBe(0);
    expect(profile.stdout).toContain(`CARD-${user}`);
    const terminals = await punchcard('admin', 'terminals', user, '--json');
    expect(JSON.parse(terminals.stdout)).toEqual([]);

    const unknown = await punchcard('admin', 'brand', `${user}-nobody`, 'x');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('not_found');
  });

  it('punchcard answers alone on stdout: checkout clients, portal users, one-time passwords, top-ups and webhooks, as text or --json', async () => {
    const user = `ops-${kind}-${Date.now()}`;
    // The README captures values with $(...): stdout is the value and its line feed, nothing else.
    const devKey = await bin('admin', '--field', 'devKey', 'devkey', 'Till vendor');
    expect(devKey).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\S{16,}\n$/) });
    expect((await punchcard('admin', 'merchant', user)).code).toBe(0);
    const profile = await punchcard('--json', 'admin', 'profile', user, '--card', `CARD-${user}`);
    const profileId = (JSON.parse(profile.stdout) as { id: number }).id;

    const otp = await punchcard('admin', '--field', 'otp', 'otp', String(profileId));
    expect(otp.stdout).toMatch(/^\d{8}\n$/);

    const created = await punchcard('--json', 'admin', 'checkout-client', user, 'Web shop');
    expect(created.code, created.stderr).toBe(0);
    const client = JSON.parse(created.stdout) as { id: number; accessToken: string; securitySecret: string };
    expect(client.accessToken).toMatch(/\S{20,}/);
    const listed = await punchcard('admin', 'checkout-clients', user, '--json');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: client.id, name: 'Web shop' })]);
    // As text: a table with a header line and one line per client.
    const table = await punchcard('admin', 'checkout-clients', user);
    expect(table.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(table.stdout).toMatch(/^id\s+name/);

    const portalUser = await punchcard(
      '--json',
      'admin',
      'portal-user',
      user,
      `owner@${user}.example`,
      '--password',
      'change-me-portal-password',
    );
    expect(JSON.parse(portalUser.stdout)).toMatchObject({ email: `owner@${user}.example`, role: 'owner' });

    const shop = [
      'checkout',
      '--access-token',
      client.accessToken,
      '--security-secret',
      client.securitySecret,
    ];
    const topUp = await punchcard('--json', ...shop, 'topup', `CARD-${user}`, '2000');
    expect(topUp.code, topUp.stderr).toBe(0);
    expect(JSON.parse(topUp.stdout)).toMatchObject({ status: 'completed' });
    const balance = await punchcard(...shop, 'profile', `CARD-${user}`, '--field', 'balance');
    expect(JSON.parse(balance.stdout)).toMatchObject({ totalAmount: 2000, currency: 'EUR' });
    const transactions = await punchcard('--json', ...shop, 'transactions', `CARD-${user}`);
    expect(JSON.parse(transactions.stdout)).toEqual([
      expect.objectContaining({ kind: 'top_up', amount: 2000 }),
    ]);
    // A refused argument: the process ends with 1 and says why on stderr, nothing on stdout.
    const refused = await bin(...shop, 'topup', `CARD-${user}`, '12.50');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('minor units');
    expect(await punchcard(...shop, 'topup', `CARD-${user}`, '12.50')).toEqual(refused);

    const hook = await punchcard('--json', ...shop, 'webhooks', 'add', 'https://93.184.215.14/hooks');
    expect(hook.code, hook.stderr).toBe(0);
    const { id } = JSON.parse(hook.stdout) as { id: string };
    const hooks = await punchcard('--json', ...shop, 'webhooks', 'list');
    expect(JSON.parse(hooks.stdout)).toEqual([
      expect.objectContaining({ id, url: 'https://93.184.215.14/hooks' }),
    ]);
    expect((await punchcard(...shop, 'webhooks', 'delete', id)).code).toBe(0);
    expect(JSON.parse((await punchcard('--json', ...shop, 'webhooks', 'list')).stdout)).toEqual([]);
    expect((await punchcard('admin', 'revoke-checkout-client', user, String(client.id))).code).toBe(0);
    const revoked = await punchcard(...shop, 'profile', `CARD-${user}`);
    expect(revoked).toMatchObject({ code: 1, stdout: '' });
    expect(revoked.stderr).toContain('unauthorized');
  }, 240_000);

  it('punchcard simulate plays baskets with cards and campaigns, grants and returns, and sums them up', async () => {
    const result = await punchcard(
      'simulate',
      '--terminals',
      '2',
      '--baskets',
      '40',
      '--rate',
      '0',
      '--grant-share',
      '0.8',
      '--return-share',
      '0.3',
      '--gzip',
      '--seed',
      '7',
      '--json',
    );
    expect(result.stderr).toContain('2 terminals');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as SimulateSummary;
    expect(summary).toMatchObject({ terminals: 2, baskets: 40, uploaded: 40, errors: {} });
    expect(summary.granted).toBeGreaterThan(20);
    expect(summary.returned).toBeGreaterThan(0);
    expect(summary.rewards).toBeGreaterThan(0);
    expect(summary.points).toBeGreaterThan(0);
    expect(summary.uploadMsP99).toBeGreaterThanOrEqual(summary.uploadMsP50);
    expect(summary.basketsPerSecond).toBeGreaterThan(0);
  });
});
