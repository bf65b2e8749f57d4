import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClient } from '../../scripts/client-generate.js';
import { type LintProblem, compileWalk, lintDocument } from '../support/api-tools.js';
import { ADMIN_TOKEN, type TestApp, databases, startApp } from '../support/harness.js';
import type { WalkResult } from './five-minute-walk.js';

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: { $ref?: string; type?: string } }> }
  >;
}
type Doc = { servers: { url: string }[]; paths: Record<string, Record<string, Operation>> };

/** The warnings the recommended rules still give, each for a reason in docs/decisions.md. */
const ACCEPTED_WARNINGS = [
  'operation-4xx-response #/paths/~1healthz/get/responses',
  'operation-4xx-response #/paths/~1readyz/get/responses',
];

const summary = (problems: LintProblem[]) => problems.map((p) => `${p.ruleId} ${p.pointer}`);

type FiveMinuteWalk = (baseUrl: string, adminToken: string, serviceUserName: string) => Promise<WalkResult>;

/**
 * The walk compiled against the client generated from the first database's document, kept for the
 * next database, whose document must be the same: generating and compiling take some 5 s of CPU.
 */
let compiled: { doc: Doc; fiveMinuteWalk: FiveMinuteWalk } | undefined;

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

  it('names every operation, describes every answer, names its types and asks for every header a call needs', () => {
    const problems: string[] = [];
    const ids = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!op.operationId || !/^[a-z]+[A-Z][A-Za-z]*$/.test(op.operationId))
          problems.push(`${where}: operationId`);
        else if (ids.has(op.operationId)) problems.push(`${where}: operationId repeated`);
        else ids.add(op.operationId);
        if (!op.security) problems.push(`${where}: no security requirement`);
        for (const [status, response] of Object.entries(op.responses)) {
          if (!response.description || response.description === 'Default Response') {
            problems.push(`${where} ${status}: no description`);
          }
          for (const media of Object.values(response.content ?? {})) {
            if (status.startsWith('2') && media.schema.type !== 'string' && !media.schema.$ref) {
              problems.push(`${where} ${status}: anonymous answer type`);
            }
          }
        }
        for (const media of Object.values(op.requestBody?.content ?? {})) {
          if (!media.schema.$ref) problems.push(`${where}: anonymous body type`);
        }
        if (path.startsWith('/api/pos/')) {
          const accept = op.parameters?.find((p) => p.in === 'header' && p.name === 'Accept');
          if (!accept) problems.push(`${where}: no Accept parameter`);
          const contents = Object.keys(op.requestBody?.content ?? {});
          if (contents.length > 0 && contents[0] !== 'application/json')
            problems.push(`${where}: JSON not first`);
        }
      }
    }
    expect(problems).toEqual([]);
    const signed = (path: string) => doc.paths[path]?.post?.security;
    for (const path of ['/api/pos/v3/baskets/{basketId}/grant', '/api/pos/v3/baskets/{basketId}/return']) {
      expect(signed(path)).toEqual([
        { DevKey: [], TrackingUnitId: [], SecurityToken: [] },
        { DevKey: [], TrackingUnitId: [], SecurityTokenV2: [] },
      ]);
    }
    for (const probe of ['/healthz', '/readyz', '/metrics'])
      expect(doc.paths[probe]?.get?.security).toEqual([]);
    const registration = doc.paths['/api/pos/v3/trackingUnits']?.get?.parameters ?? [];
    expect(
      registration
        .filter((p) => p.required)
        .map((p) => p.name)
        .sort(),
    ).toEqual(['instanceName', 'outletId', 'serviceUserName']);
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    // The order's signature and idempotency headers are parameters a reader sees, not only schemes.
    const order = doc.paths['/api/v1/orders']?.post?.parameters ?? [];
    expect(order.filter((p) => p.in === 'header' && p.required).map((p) => p.name)).toEqual([
      'Idempotency-Key',
      'Timestamp',
      'Security-Token',
    ]);
    const webhooks = (doc as unknown as { webhooks: Record<string, { post: Operation }> }).webhooks;
    expect(Object.keys(webhooks)).toEqual(['transaction.status.changed']);
    expect(webhooks['transaction.status.changed']?.post.parameters?.map((p) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
  });

  // The document does not depend on the database: linted and regressed once, on the first.
  const first = kind === databases[0];

  if (first)
    it('passes the recommended rules of Redocly CLI with no error and no unexplained warning', async () => {
      const problems = await lintDocument(doc, work);
      expect(summary(problems.filter((p) => p.severity === 'error'))).toEqual([]);
      expect(summary(problems.filter((p) => p.severity === 'warn')).sort()).toEqual(
        [...ACCEPTED_WARNINGS].sort(),
      );
    });

  it('a client generated from the served document compiles and walks the README: devKey to grant', async () => {
    // The document does not depend on the database: served the same, it gives the same client.
    if (compiled) expect(doc).toEqual(compiled.doc);
    else {
      const dir = join(work, 'walk');
      await generateClient(doc, join(dir, 'generated'));
      // The webhook event is typed for receivers too (the document's webhooks section).
      const types = readFileSync(join(dir, 'generated', 'types.gen.ts'), 'utf8');
      expect(types).toContain('export type WebhookEvent = {');
      expect(types).toContain('export type TransactionStatusChangedWebhookPayload = WebhookEvent;');
      const { diagnostics, walkModule } = compileWalk(dir);
      expect(diagnostics).toEqual([]);
      const walk = (await import(pathToFileURL(walkModule).href)) as { fiveMinuteWalk: FiveMinuteWalk };
      compiled = { doc: structuredClone(doc), fiveMinuteWalk: walk.fiveMinuteWalk };
    }
    const { fiveMinuteWalk } = compiled;
    const result = await fiveMinuteWalk(baseUrl, ADMIN_TOKEN, `cafe-${kind}-${Date.now()}`);
    expect(result.trackingUnitId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.upload).toMatchObject({ Rewards: [], LoyaltyInfo: [] });
    expect(result.grant).toMatchObject({ BasketId: 'R-1001', Granted: true });
  });

  if (first)
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
