import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsMarkdown } from '../../scripts/errors-doc.js';
import { catalogEntries } from '../../src/shared/errors.js';
import { hashToken } from '../../src/admin/auth.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/shared/clock.js';
import { openDatabase } from '../../src/store/db.js';
import {
  ADMIN_TOKEN,
  type TestApp,
  type Terminal,
  databases,
  setupTerminal,
  startApp,
} from '../support/harness.js';

describe.each(databases)('operations on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
  });
  afterAll(() => t?.close());

  it('/healthz answers ok', async () => {
    const res = await t.app.inject('/healthz');
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz answers ready when the database answers', async () => {
    const res = await t.app.inject('/readyz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', database: kind });
  });

  it('/metrics counts requests per route pattern and status, and shows the pool', async () => {
    await term.pos('POST', '/baskets/M1', {
      body: { Timestamp: '2026-01-01T00:00:00Z', HasDiscounts: false },
    });
    const res = await t.app.inject('/metrics');
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.body).toMatch(
      /punchcard_http_requests_total\{method="POST",route="\/api\/pos\/v3\/baskets\/:basketId",status="200"\} 1/,
    );
    expect(res.body).toContain('punchcard_http_request_duration_seconds_bucket');
    expect(res.body).toMatch(/punchcard_db_pool_connections\{state="total"\}/);
    expect(res.body).toMatch(/^punchcard_db_connections_given_up_total 0$/m);
  });

  it('/metrics counts the batched writes: every upload and grant in a batch, each batch timed', async () => {
    /** A series' value on /metrics (0 when it is not there yet). */
    const value = async (series: string): Promise<number> => {
      const body = (await t.app.inject('/metrics')).body;
      const line = body.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? 0 : Number(line.slice(series.length + 1));
    };
    const uploads = 'punchcard_write_batch_items_sum{writer="basket_uploads"}';
    const uploadBatches = 'punchcard_write_batch_items_count{writer="basket_uploads"}';
    const uploadTimes = 'punchcard_write_batch_duration_seconds_count{writer="basket_uploads"}';
    const grants = 'punchcard_write_batch_items_sum{writer="basket_grants"}';
    const before = {
      uploads: await value(uploads),
      batches: await value(uploadBatches),
      grants: await value(grants),
    };
    const ids = ['W1', 'W2', 'W3', 'W4', 'W5', 'W6'];
    const answers = await Promise.all(
      ids.map((id) =>
        term.pos('POST', `/baskets/${id}`, {
          body: { Timestamp: '2026-01-01T00:00:00Z', HasDiscounts: false },
        }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(ids.map(() => 200));
    expect((await term.pos('POST', '/baskets/W1/grant', { sign: 'W1' })).statusCode).toBe(200);
    expect(await value(uploads)).toBe(before.uploads + ids.length);
    const batches = (await value(uploadBatches)) - before.batches;
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThanOrEqual(ids.length);
    expect(await value(uploadTimes)).toBe(await value(uploadBatches));
    expect(await value(grants)).toBe(before.grants + 1);
  });

  it('/openapi.json is a valid OpenAPI 3.1 document listing every route', async () => {
    const res = await t.app.inject('/openapi.json');
    const doc = res.json() as { paths: Record<string, unknown>; info: { description: string } };
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result).toEqual({ valid: true });
    const routes = t.app
      .printRoutes({ commonPrefix: false })
      .split('\n')
      .filter((l) => l.includes('/api/'));
    expect(routes.length).toBeGreaterThan(0);
    for (const path of [
      '/api/pos/v3/baskets/{basketId}',
      '/api/pos/v3/baskets/{basketId}/grant',
      '/api/admin/v1/merchants',
    ]) {
      expect(doc.paths[path]).toBeDefined();
    }
  });

  it('no request schema writes "or null" as anyOf (type coercion would turn null into 0 or "")', async () => {
    const doc = (await t.app.inject('/openapi.json')).json() as {
      paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown }>>;
    };
    const offenders: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      for (const key of ['anyOf', 'oneOf']) {
        const members = record[key];
        if (Array.isArray(members) && members.some((m) => (m as { type?: unknown }).type === 'null')) {
          offenders.push(`${where}/${key}`);
        }
      }
      for (const [k, v] of Object.entries(record)) walk(v, `${where}/${k}`);
    };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        walk(op.requestBody, `${method} ${path} body`);
        walk(op.parameters, `${method} ${path} parameters`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('every catalogued error id is on the error catalog page the API reference links, and in docs/errors.md', async () => {
    const doc = (await t.app.inject('/openapi.json')).json() as { info: { description: string } };
    expect(doc.info.description).toContain('(/docs/errors)');
    const page = await t.app.inject('/docs/errors');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const errorsDoc = readFileSync('docs/errors.md', 'utf8');
    for (const e of catalogEntries()) {
      expect(page.body).toContain(`<td>${e.errorId}</td><td><code>${e.code}</code></td><td>${e.status}</td>`);
      expect(errorsDoc).toContain(`| ${e.errorId} | \`${e.code}\` | ${e.status} |`);
    }
  });

  it('docs/errors.md is generated from the catalog and up to date (npm run docs:errors)', () => {
    expect(readFileSync('docs/errors.md', 'utf8')).toBe(errorsMarkdown());
  });

  it('/docs serves the API reference page', async () => {
    const res = await t.app.inject('/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('an unknown route answers the catalogued 404 in the API wire format', async () => {
    const pos = await t.app.inject({ url: '/api/pos/v3/nothing', headers: { accept: 'application/json' } });
    expect(pos.statusCode).toBe(404);
    expect(pos.json()).toMatchObject({ ErrorId: 1006 });
    const admin = await t.app.inject('/api/admin/v1/nothing');
    expect(admin.statusCode).toBe(404);
  });

  it('the operator API needs the admin token (401 unauthorized)', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/admin/v1/devKeys', payload: { name: 'x' } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      error: {
        code: 'unauthorized',
        message: 'Authorization is missing or wrong.',
        requestId: expect.any(String),
      },
    });
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/admin/v1/devKeys',
      headers: { authorization: 'Bearer wrong-token' },
      payload: { name: 'x' },
    });
    expect(wrong.statusCode).toBe(401);
  });

  it('the operator API refuses a duplicate merchant (409), an unknown time zone and an unknown currency (400)', async () => {
    const dup = await t.admin('POST', '/merchants', {
      serviceUserName: term.serviceUserName,
      displayName: 'x',
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ error: { code: 'conflict' } });
    const tz = await t.admin('POST', '/merchants', {
      serviceUserName: 'tz-test',
      displayName: 'x',
      timeZone: 'Mars/Olympus',
    });
    expect(tz.statusCode).toBe(400);
    expect(tz.json()).toMatchObject({ error: { code: 'invalid_request' } });
    const currency = await t.admin('POST', '/merchants', {
      serviceUserName: 'currency-test',
      displayName: 'x',
      currency: 'ZZZ',
    });
    expect(currency.statusCode).toBe(400);
    expect(currency.json()).toMatchObject({
      error: { code: 'invalid_request', message: expect.stringContaining('ZZZ') },
    });
    const jpy = await t.admin('POST', '/merchants', {
      serviceUserName: 'yen-test',
      displayName: 'x',
      currency: 'JPY',
    });
    expect(jpy.statusCode).toBe(201);
  });
});

describe('failures', () => {
  const kind = databases[0] ?? 'pglite';

  it('a 500 carries ErrorMessage and StackTrace only when EXPOSE_ERROR_DETAILS=true (development)', async () => {
    const t = await startApp(kind, {}, { EXPOSE_ERROR_DETAILS: 'true' });
    const term = await setupTerminal(t);
    await t.database.db.schema.dropTable('baskets').execute();
    const res = await term.pos('POST', '/baskets/X', {
      body: { Timestamp: '2026-01-01T00:00:00Z', HasDiscounts: false },
    });
    expect(res.statusCode).toBe(500);
    const body = res.json() as Record<string, unknown>;
    expect(body.ErrorId).toBe(1);
    expect(typeof body.StackTrace).toBe('string');
    await t.close();
  });

  it('by default a 500 carries no stack trace and no database text, also outside NODE_ENV=production', async () => {
    const t = await startApp(kind);
    const term = await setupTerminal(t);
    await t.database.db.schema.dropTable('baskets').execute();
    const res = await term.pos('POST', '/baskets/X', {
      body: { Timestamp: '2026-01-01T00:00:00Z', HasDiscounts: false },
    });
    expect(res.statusCode).toBe(500);
    expect(res.body).toBe('{"ErrorId":1,"ErrorText":"Processing failure."}');
    expect(res.body).not.toMatch(/baskets|relation|at /);
    await t.database.db.schema.dropTable('dev_keys').cascade().execute();
    const api = await t.admin('POST', '/devKeys', { name: 'x' });
    expect(api.statusCode).toBe(500);
    expect(api.json()).toEqual({
      error: { code: 'internal_error', message: 'Processing failure.', requestId: expect.any(String) },
    });
    await t.close();
  });

  it('a 500 never carries StackTrace when NODE_ENV=production', async () => {
    const t = await startApp(kind, { production: true });
    const term = await setupTerminal(t);
    await t.database.db.schema.dropTable('baskets').execute();
    const json = await term.pos('POST', '/baskets/X', {
      body: { Timestamp: '2026-01-01T00:00:00Z', HasDiscounts: false },
    });
    expect(json.statusCode).toBe(500);
    expect(json.json()).toEqual({ ErrorId: 1, ErrorText: 'Processing failure.' });
    const xml = await term.pos('POST', '/baskets/X', {
      body: '<Basket><Timestamp>2026-01-01T00:00:00Z</Timestamp><HasDiscounts>false</HasDiscounts></Basket>',
      format: 'xml',
    });
    expect(xml.body).toBe(
      '<?xml version="1.0" encoding="utf-8"?><Error><ErrorId>1</ErrorId><ErrorText>Processing failure.</ErrorText></Error>',
    );
    await t.close();
  });

  it('/readyz answers 503 when the database does not answer', async () => {
    const database = await openDatabase({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', dataDir: null });
    const app = await buildApp(
      {
        config: loadConfig({ ADMIN_TOKEN }),
        database,
        clock: systemClock,
        adminTokenHash: hashToken(ADMIN_TOKEN),
      },
      { logger: false },
    );
    const res = await app.inject('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: { code: 'service_unavailable' } });
    const live = await app.inject('/healthz');
    expect(live.statusCode).toBe(200);
    await app.close();
    await database.close();
  });
});
