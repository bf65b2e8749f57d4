import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClient } from '../../scripts/client-generate.js';
import { type LintProblem, compileWalk, lintDocument } from '../support/api-tools.js';
import { ADMIN_TOKEN, type TestApp, databases, startApp } from '../support/harness.js';
import type { WalkResult } from './five-minute-walk.js';

type Doc = { paths: Record<string, Record<string, { operationId?: string }>> };

/** The warnings the recommended rules still give, each for a reason in docs/decisions.md. */
const ACCEPTED_WARNINGS = [
  'operation-4xx-response #/paths/~1healthz/get/responses',
  'operation-4xx-response #/paths/~1readyz/get/responses',
  'operation-4xx-response #/paths/~1metrics/get/responses',
];

const summary = (problems: LintProblem[]) => problems.map((p) => `${p.ruleId} ${p.pointer}`);

describe.each(databases)('the API document for client generators and linters, on %s', (kind) => {
  let t: TestApp;
  let baseUrl: string;
  let doc: Doc;
  let work: string;

  beforeAll(async () => {
    t = await startApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Doc;
    mkdirSync(resolve('.test-cache'), { recursive: true });
    work = mkdtempSync(join(resolve('.test-cache'), 'api-document-'));
  });
  afterAll(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('passes the recommended rules of Redocly CLI with no error and no unexplained warning', async () => {
    const problems = await lintDocument(doc, work);
    expect(summary(problems.filter((p) => p.severity === 'error'))).toEqual([]);
    expect(summary(problems.filter((p) => p.severity === 'warn')).sort()).toEqual(
      [...ACCEPTED_WARNINGS].sort(),
    );
  });

  it('a client generated from the served document compiles and walks the README: devKey to grant', async () => {
    const dir = join(work, 'walk');
    await generateClient(doc, join(dir, 'generated'));
    const { diagnostics, walkModule } = compileWalk(dir);
    expect(diagnostics).toEqual([]);
    const { fiveMinuteWalk } = (await import(pathToFileURL(walkModule).href)) as {
      fiveMinuteWalk(baseUrl: string, adminToken: string, serviceUserName: string): Promise<WalkResult>;
    };
    const result = await fiveMinuteWalk(baseUrl, ADMIN_TOKEN, `cafe-${kind}-${Date.now()}`);
    expect(result.trackingUnitId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.upload).toMatchObject({ Rewards: [], LoyaltyInfo: [] });
    expect(result.grant).toMatchObject({ BasketId: 'R-1001', Granted: true });
  });

  it('a document that loses an operationId fails the linter and the generated walk no longer compiles', async () => {
    const regressed = structuredClone(doc);
    const grant = regressed.paths['/api/pos/v3/baskets/{basketId}/grant']?.post;
    expect(grant?.operationId).toBe('grantBasket');
    if (grant) delete grant.operationId;
    const problems = await lintDocument(regressed, work);
    const missing = problems.filter((p) => p.ruleId === 'operation-operationId');
    expect(missing.map((p) => decodeURIComponent(p.pointer))).toEqual([
      '#/paths/~1api~1pos~1v3~1baskets~1{basketId}~1grant/post/operationId',
    ]);
    const dir = join(work, 'regressed');
    await generateClient(regressed, join(dir, 'generated'));
    expect(compileWalk(dir).diagnostics.join('\n')).toMatch(/grantBasket/);
  });
});
