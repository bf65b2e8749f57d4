import { createHash, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyRequest, LightMyRequestResponse } from 'fastify';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import { hashToken } from '../../src/admin/auth.js';
import { type BuildOptions, buildApp } from '../../src/app.js';
import type { BasketTerminal } from '../../src/baskets/basket.types.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/shared/clock.js';
import { type Database, openDatabase } from '../../src/store/db.js';
import { takeEmbedded } from './embedded-pool.js';
import { takePostgres } from './postgres-pool.js';
import { applyStoredFunctions } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';
import type { DB } from '../../src/store/schema.js';
import { withDatabase } from './global-setup.js';
import { type RecordedResponse, checkResponses } from './openapi-check.js';
import { sharedCompilers } from './schema-compilers.js';
import { TRAFFIC_DIR, type TrafficExchange, jsonOrUndefined, recordTraffic } from './traffic.js';

export type DatabaseKind = 'pglite' | 'postgres';

/** The databases every integration test runs on: PGlite always, PostgreSQL when configured. */
export const databases: DatabaseKind[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** scrypt's N of test apps' portal passwords; portal-password.test.ts signs in at the service's 2^15. */
export const TEST_PASSWORD_COST = 2 ** 10;

/** A fresh database of the given kind, copied from the migrated template of this run. */
export async function openTestDatabase(
  kind: DatabaseKind,
): Promise<{ database: Database; drop(): Promise<void> }> {
  if (kind === 'pglite') return takeEmbedded();
  const url = process.env.TEST_DATABASE_URL;
  const template = inject('postgresTemplate');
  if (!url || !template) throw new Error('PostgreSQL tests need TEST_DATABASE_URL');
  return takePostgres(url, template, (name) =>
    openDatabase({ ...behindPooler(withDatabase(url, name), name), dataDir: null, poolSize: 20 }),
  );
}

/**
 * With TEST_POOLER_URL (a PgBouncer in transaction mode whose `*` entry reaches the same
 * PostgreSQL, as deploy/cluster sets one up), the app's pool goes through the pooler, and its
 * order pipeline straight to PostgreSQL (DATABASE_PIPELINE_URL), as docs/scaling.md says to run it.
 * `npm run test:pooler` runs the concurrency tests so, on both paths.
 * The test databases are made and dropped directly either way.
 */
function behindPooler(
  direct: string,
  name: string,
): { databaseUrl: string; pipelineUrl?: string; pipelines?: boolean; sessionSettings?: boolean } {
  const pooler = process.env.TEST_POOLER_URL;
  if (!pooler) return { databaseUrl: direct };
  // TEST_POOLER_PIPELINE=off: the order writer without its pipelined connection (DATABASE_POOLER
  // =transaction without DATABASE_PIPELINE_URL), every order through the pooler. The sessions are
  // the pooler's, as the server leaves them there.
  const through = { databaseUrl: withDatabase(pooler, name), sessionSettings: false };
  if (process.env.TEST_POOLER_PIPELINE === 'off') return { ...through, pipelines: false };
  return { ...through, pipelineUrl: direct, pipelines: true };
}

/**
 * An empty database of the given kind, no migration applied: migration tests build the state of
 * an earlier release in it (`applyMigrations`).
 */
export async function emptyTestDatabase(
  kind: DatabaseKind,
): Promise<{ database: Database; drop(): Promise<void> }> {
  if (kind === 'pglite') {
    const database = await openDatabase({ databaseUrl: null, dataDir: null });
    return { database, drop: () => database.close() };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('PostgreSQL tests need TEST_DATABASE_URL');
  const name = `punchcard_m_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const database = await openDatabase({ databaseUrl: withDatabase(url, name), dataDir: null, poolSize: 2 });
  return {
    database,
    async drop() {
      await database.close();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Runs the statements of the migrations whose names pass `which`, oldest first, after the stored
 * functions (as the migrator applies them first: the migrations' triggers and generated columns
 * use them).
 */
export async function applyMigrations(database: Database, which: (name: string) => boolean): Promise<void> {
  await applyStoredFunctions(database.db);
  for (const m of migrations.filter((x) => which(x.name))) {
    for (const statement of m.statements) await sql.raw(statement).execute(database.db);
  }
}

/**
 * When a test app's clock starts: the real time, or TEST_CLOCK_START (an ISO time) to run tests at
 * a chosen hour, such as just before midnight in the merchants' zone at the end of a month or year
 * (docs/decisions.md, "Tests": the tests run at any hour). A file whose requests are signed by a
 * process or a page with the machine's clock starts its app there instead (`clock.ms = Date.now()`).
 */
const clockStart = (): number => {
  const start = process.env.TEST_CLOCK_START;
  if (!start) return Date.now();
  const ms = Date.parse(start);
  if (Number.isNaN(ms)) throw new Error(`TEST_CLOCK_START is not a time: ${start}`);
  return ms;
};

/** A settable clock for tests; starts at the real time (or TEST_CLOCK_START). */
export class TestClock implements Clock {
  constructor(public ms = clockStart()) {}
  nowMs(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface TestApp {
  readonly kind: DatabaseKind;
  readonly app: FastifyInstance;
  readonly database: Database;
  readonly clock: TestClock;
  readonly config: Config;
  /** Operator API call with the admin token. */
  admin(method: string, url: string, body?: unknown): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * The OpenAPI document a test app serves, kept per process by what decides it: the code (the same
 * for every app of a test process), the app's configuration and its database's kind. Building it
 * (`app.swagger()`, every route's schemas converted) took 0.2 to 0.6 s of each test app's close,
 * and test apps with the same configuration serve the same document.
 */
const documents = new Map<string, unknown>();

function documentOf(app: FastifyInstance, kind: DatabaseKind, config: Config): unknown {
  const key = `${kind} ${JSON.stringify(config)}`;
  let doc = documents.get(key);
  if (doc === undefined) {
    doc = app.swagger();
    documents.set(key, doc);
  }
  return doc;
}

export async function startApp(
  kind: DatabaseKind,
  overrides: Partial<Config> = {},
  env: Record<string, string> = {},
  build: Pick<BuildOptions, 'logger'> = {},
): Promise<TestApp> {
  const { database, drop } = await openTestDatabase(kind);
  const config: Config = {
    ...loadConfig({ ADMIN_TOKEN, DATA_DIR: '/tmp/punchcard-test', NODE_ENV: 'test', ...env }),
    portalPasswordCost: TEST_PASSWORD_COST,
    ...overrides,
  };
  const clock = new TestClock();
  const recorded: RecordedResponse[] = [];
  const traffic: TrafficExchange[] = [];
  const itemwiseBodies = new WeakMap<FastifyRequest, string>();
  const app = await buildApp(
    { config, database, clock, adminTokenHash: hashToken(ADMIN_TOKEN) },
    {
      logger: build.logger ?? false,
      compilersFactory: sharedCompilers,
      // A body read item by item (a sortiment bulk upload) is no parsed tree: its text, while it is there.
      onRequestRead: (request) => {
        if (TRAFFIC_DIR && request.jsonBytes && request.jsonBytes.length <= 100_000) {
          itemwiseBodies.set(request, request.jsonBytes.text(0, request.jsonBytes.length));
        }
      },
      onResponseSent: (request, reply, payload) => {
        const entry = {
          method: request.method,
          route: request.routeOptions.url ?? '',
          status: reply.statusCode,
          contentType: String(reply.getHeader('content-type') ?? ''),
          body:
            typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '',
        };
        recorded.push(entry);
        if (TRAFFIC_DIR) {
          const json = (type: string | undefined) => type !== undefined && type.includes('json');
          traffic.push({
            kind: 'exchange',
            method: entry.method,
            route: entry.route,
            status: entry.status,
            ...(json(request.headers['content-type']) && request.body !== undefined
              ? {
                  requestBody: itemwiseBodies.has(request)
                    ? jsonOrUndefined(itemwiseBodies.get(request) ?? '')
                    : request.body,
                }
              : {}),
            headers: Object.fromEntries(
              Object.entries(reply.getHeaders()).map(([k, v]) => [k.toLowerCase(), String(v)]),
            ),
            ...(json(entry.contentType) ? { body: jsonOrUndefined(entry.body) } : {}),
          });
        }
      },
    },
  );
  await app.ready();
  return {
    kind,
    app,
    database,
    clock,
    config,
    admin: (method, url, body) =>
      app.inject({
        method: method as 'GET',
        url: `/api/admin/v1${url}`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        ...(body === undefined ? {} : { payload: body as object }),
      }),
    async close() {
      // Every response a test provoked must be documented, and JSON bodies must match their schema.
      const problems = checkResponses(documentOf(app, kind, config), recorded);
      recordTraffic(traffic);
      await app.close();
      await drop();
      if (problems.length > 0) {
        throw new Error(
          `Responses that the OpenAPI document does not describe:\n${[...new Set(problems)].join('\n')}`,
        );
      }
    },
  };
}

export function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** SecurityToken of the POS interface: MD5 of input + "qPnsS14" + checksumSecret. */
export function securityToken(input: string, checksumSecret: string): string {
  return md5(`${input}qPnsS14${checksumSecret}`);
}

export interface PosRequest {
  body?: unknown;
  /** Raw body text (XML, malformed JSON); sent as it is. */
  raw?: string | Buffer;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  format?: 'json' | 'xml';
  gzip?: boolean;
  /** SecurityToken input; the token is computed with the unit's secret. */
  sign?: string;
}

export interface Terminal {
  readonly devKey: string;
  readonly serviceUserName: string;
  readonly brandId: number;
  readonly outletId: number;
  readonly trackingUnitId: string;
  readonly checksumSecret: string;
  /** POS v3 call with DevKey and trackingUnitId. */
  pos(method: string, path: string, request?: PosRequest): Promise<LightMyRequestResponse>;
}

/**
 * A terminal as the basket and grant writers take it: its tracking unit's merchant, outlet, DevKey
 * and sortiment, with the merchant's currency, time zone and rules version, read from the database.
 */
export async function basketTerminalOf(t: TestApp, term: Terminal): Promise<BasketTerminal> {
  const row = await t.database.db
    .selectFrom('tracking_units as tu')
    .innerJoin('merchants as m', 'm.id', 'tu.merchant_id')
    .select([
      'tu.dev_key_id',
      'tu.merchant_id',
      'tu.outlet_id',
      'tu.sortiment_id',
      'm.currency',
      'm.time_zone',
      'm.rules_version',
    ])
    .where('tu.id', '=', term.trackingUnitId)
    .executeTakeFirstOrThrow();
  return {
    devKeyId: row.dev_key_id,
    unitId: term.trackingUnitId,
    merchantId: row.merchant_id,
    outletId: row.outlet_id,
    sortimentId: row.sortiment_id,
    currency: row.currency,
    timeZone: row.time_zone,
    rulesVersion: row.rules_version,
  };
}

let merchantCounter = 0;

/**
 * A merchant with a brand, an outlet and a registered terminal (activated unless asked
 * otherwise), the way an integrator sets one up.
 */
export async function setupTerminal(
  t: TestApp,
  options: {
    activate?: boolean;
    serviceUserName?: string;
    devKey?: string;
    currency?: string;
    timeZone?: string;
  } = {},
): Promise<Terminal> {
  merchantCounter += 1;
  const serviceUserName =
    options.serviceUserName ?? `merchant-${merchantCounter}-${randomUUID().slice(0, 8)}`;
  let devKey = options.devKey;
  if (!devKey) {
    const dk = await t.admin('POST', '/devKeys', { name: 'Till vendor' });
    devKey = (dk.json() as { devKey: string }).devKey;
  }
  const m = await t.admin('POST', '/merchants', {
    serviceUserName,
    displayName: serviceUserName,
    currency: options.currency ?? 'EUR',
    timeZone: options.timeZone ?? 'Europe/Berlin',
  });
  if (m.statusCode !== 201) throw new Error(`merchant: ${m.body}`);
  const b = await t.admin('POST', `/merchants/${encodeURIComponent(serviceUserName)}/brands`, {
    name: 'Brand',
  });
  const brandId = (b.json() as { brandId: number }).brandId;
  const o = await t.app.inject({
    method: 'POST',
    url: `/api/pos/v3/merchants/${encodeURIComponent(serviceUserName)}/outlets?brandId=${brandId}`,
    headers: { devkey: devKey, accept: 'application/json', 'content-type': 'application/json' },
    payload: { Name: 'Main street' },
  });
  const outletId = (o.json() as { Id: number }).Id;
  const r = await t.app.inject({
    method: 'GET',
    url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(serviceUserName)}&outletId=${outletId}&instanceName=Till%201`,
    headers: { devkey: devKey, accept: 'application/json' },
  });
  const { trackingUnitId, checksumSecret } = r.json() as { trackingUnitId: string; checksumSecret: string };
  if (options.activate !== false) {
    const a = await t.admin('POST', `/trackingUnits/${trackingUnitId}/activate`);
    if (a.statusCode !== 200) throw new Error(`activate: ${a.body}`);
  }
  const key = devKey;
  return {
    devKey: key,
    serviceUserName,
    brandId,
    outletId,
    trackingUnitId,
    checksumSecret,
    pos: (method, path, request = {}) =>
      posCall(t, { devKey: key, trackingUnitId, checksumSecret }, method, path, request),
  };
}

/** The database id of the terminal's merchant (for calls below the HTTP edge). */
export async function merchantIdOf(t: TestApp, term: Terminal): Promise<number> {
  const m = await t.database.db
    .selectFrom('merchants')
    .select('id')
    .where('service_user_name', '=', term.serviceUserName)
    .executeTakeFirstOrThrow();
  return m.id;
}

/** The serviceSortimentId of the terminal's sortiment with this identifier (made on first call). */
export async function sortimentIdOf(term: Terminal, thirdPartySortimentIdentifier: string): Promise<string> {
  const res = await term.pos('GET', '/sortiments', { query: { thirdPartySortimentIdentifier } });
  return (res.json() as { serviceSortimentId: string }).serviceSortimentId;
}

export async function posCall(
  t: TestApp,
  auth: { devKey?: string; trackingUnitId?: string; checksumSecret?: string },
  method: string,
  path: string,
  request: PosRequest = {},
): Promise<LightMyRequestResponse> {
  const format = request.format ?? 'json';
  const mime = format === 'json' ? 'application/json' : 'application/xml';
  const headers: Record<string, string> = { accept: mime };
  if (auth.devKey) headers.devkey = auth.devKey;
  if (auth.trackingUnitId) headers.trackingunitid = auth.trackingUnitId;
  if (request.sign !== undefined && auth.checksumSecret) {
    headers.securitytoken = securityToken(request.sign, auth.checksumSecret);
  }
  let payload: string | Buffer | undefined;
  if (request.raw !== undefined) payload = request.raw;
  else if (request.body !== undefined)
    payload = format === 'json' ? JSON.stringify(request.body) : String(request.body);
  if (payload !== undefined) {
    headers['content-type'] = `${mime}; charset=utf-8`;
    if (request.gzip) {
      payload = gzipSync(payload);
      headers['content-encoding'] = 'gzip';
    }
  }
  Object.assign(headers, request.headers ?? {});
  const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
  return t.app.inject({
    method: method as 'GET',
    url: `/api/pos/v3${path}${query}`,
    headers,
    ...(payload === undefined ? {} : { payload }),
  });
}

/** The database handle, counting the statements sent through it (group commit's tests). */
export function countingStatements(db: Kysely<DB>): { db: Kysely<DB>; statements: () => number } {
  let n = 0;
  const proxy = new Proxy(db, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (prop !== 'executeQuery' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        n += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { db: proxy, statements: () => n };
}

/** The database handle, counting the rows answered by the statements sent through it. */
export function countingRows(db: Kysely<DB>): { db: Kysely<DB>; rows: () => number } {
  let n = 0;
  return {
    db: db.withPlugin({
      transformQuery: ({ node }) => node,
      transformResult: ({ result }) => {
        n += result.rows.length;
        return Promise.resolve(result);
      },
    }),
    rows: () => n,
  };
}
