import zlib from 'node:zlib';
import Fastify from 'fastify';
import { type MockInstance, afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerPosAuth } from '../../src/pos/route-auth.js';
import { PipelinedConnection } from '../../src/store/pipelined-connection.js';
import {
  ADMIN_TOKEN,
  type TestApp,
  type Terminal,
  databases,
  setupTerminal,
  startApp,
} from '../support/harness.js';

/**
 * Authentication comes before the body: a POS call without valid DevKey, trackingUnitId and
 * activation (or an operator call without its token) is answered 401 / 403 before its body is
 * decompressed or parsed, so an unauthenticated caller never costs an inflation or a parse.
 */

/** Bytes that are not gzip, brotli or JSON at all: inflating or parsing them fails with 400. */
const NOT_GZIP = Buffer.from('this is not a gzip stream, nor JSON, nor XML <<<');

/** The POS operations of the API reference, read from the built app (routes added later included). */
function posOperations(t: TestApp): { method: string; path: string }[] {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  const out: { method: string; path: string }[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/pos/v3/')) continue;
    for (const method of Object.keys(operations)) {
      const concrete = path.replace(/\{[^}]+\}/g, 'x1');
      out.push({ method: method.toUpperCase(), path: concrete });
    }
  }
  return out;
}

describe('POS routes declare their authentication', () => {
  it('a POS route registered without config.auth fails at registration', async () => {
    const app = Fastify({ logger: false });
    const loading = (async () => {
      await app.register(async (pos) => {
        registerPosAuth(pos, {} as never);
        pos.get('/declared', { config: { auth: 'devKey' } }, async () => 'ok');
        pos.get('/forgotten', async () => 'no');
      });
      await app.ready();
    })();
    await expect(loading).rejects.toThrow(/GET \/forgotten must declare config\.auth/);
    await app.close();
  });

  it('an unknown kind of authentication fails at registration too', async () => {
    const app = Fastify({ logger: false });
    const loading = (async () => {
      await app.register(async (pos) => {
        registerPosAuth(pos, {} as never);
        pos.post('/x', { config: { auth: 'nobody' as never } }, async () => 'no');
      });
      await app.ready();
    })();
    await expect(loading).rejects.toThrow(/POST \/x must declare config\.auth/);
    await app.close();
  });
});

describe.each(databases)('authentication before the body (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let inactive: Terminal;
  let gunzip: MockInstance<typeof zlib.createGunzip>;
  let brotli: MockInstance<typeof zlib.createBrotliDecompress>;

  beforeAll(async () => {
    // The service takes the decompressors when it is built, so they are watched from before that.
    gunzip = vi.spyOn(zlib, 'createGunzip');
    brotli = vi.spyOn(zlib, 'createBrotliDecompress');
    // No outbox dispatcher in this app: its polling would count among the round trips counted here.
    t = await startApp(kind, { outboxDisabled: true });
    term = await setupTerminal(t);
    inactive = await setupTerminal(t, { activate: false, devKey: term.devKey });
  });
  afterAll(async () => {
    await t.close();
    gunzip.mockRestore();
    brotli.mockRestore();
  });
  afterEach(() => {
    gunzip.mockClear();
    brotli.mockClear();
  });

  it('every POS operation answers a body that is not gzip with 401 without credentials, and never inflates it', async () => {
    const operations = posOperations(t);
    expect(operations.length).toBeGreaterThanOrEqual(20);
    for (const { method, path } of operations) {
      for (const encoding of ['gzip', 'br']) {
        const res = await t.app.inject({
          method: method as 'POST',
          url: path,
          headers: {
            'content-type': 'application/json',
            'content-encoding': encoding,
            accept: 'application/json',
          },
          payload: NOT_GZIP,
        });
        expect(`${method} ${path} ${encoding}: ${res.statusCode}`).toBe(`${method} ${path} ${encoding}: 401`);
        expect(res.json()).toMatchObject({ ErrorId: 1001 });
      }
    }
    expect(gunzip).not.toHaveBeenCalled();
    expect(brotli).not.toHaveBeenCalled();
  });

  it('an unknown DevKey or trackingUnitId is 401 before a gzip bomb is inflated; with credentials it is inflated', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(t.config.bodyLimitBytes + 1024 * 1024, 0x20));
    const send = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/pos/v3/baskets/b-1',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...headers },
        payload: bomb,
      });
    const noUnit = await send({ devkey: term.devKey, trackingunitid: 'no-such-unit' });
    expect(noUnit.statusCode).toBe(401);
    expect(noUnit.json()).toMatchObject({ ErrorId: 1002 });
    const noKey = await send({ devkey: 'no-such-key', trackingunitid: term.trackingUnitId });
    expect(noKey.statusCode).toBe(401);
    expect(noKey.json()).toMatchObject({ ErrorId: 1001 });
    expect(gunzip).not.toHaveBeenCalled();
    // The same bomb from the terminal itself is inflated (and refused by the body limit).
    const own = await send({ devkey: term.devKey, trackingunitid: term.trackingUnitId });
    expect(own.statusCode).toBe(413);
    expect(gunzip).toHaveBeenCalledTimes(1);
  });

  it('a unit the merchant has not activated is 403 / 1004 before its body is inflated', async () => {
    const res = await inactive.pos('POST', '/baskets/b-2', {
      raw: NOT_GZIP,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ ErrorId: 1004 });
    expect(gunzip).not.toHaveBeenCalled();
    // Activated, the same bytes are inflated and found not to be gzip.
    const own = await term.pos('POST', '/baskets/b-2', {
      raw: NOT_GZIP,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(own.statusCode).toBe(400);
    expect(gunzip).toHaveBeenCalledTimes(1);
  });

  it('a basket upload from a terminal seen within the last minute is still one database round trip', async () => {
    const basket = {
      Timestamp: '2026-03-02T16:59:00+01:00',
      HasDiscounts: false,
      CurrencyISO: 'EUR',
      TotalValue: 2.45,
      Positions: [{ PositionId: 1, ProductId: 'p', Unit: 0, Amount: 1, CurrentGrossPrice: 2.45 }],
    };
    const fresh = await setupTerminal(t, { devKey: term.devKey });
    const queries = vi.spyOn(t.database.db.getExecutor(), 'executeQuery');
    // On PostgreSQL the upload's write goes over the basket writer's pipelined connection.
    const pipelined = vi.spyOn(PipelinedConnection.prototype, 'query');
    /** The statements sent, through the pool and the pipelined connection. */
    const sent = () => [
      ...queries.mock.calls.map((c) => String((c[0] as { sql?: string } | undefined)?.sql)),
      ...pipelined.mock.calls.map((c) => c[1]),
    ];
    try {
      const first = await fresh.pos('POST', '/baskets/rt-1', { body: basket });
      expect(first.statusCode).toBe(200);
      // The hook looks the terminal up once; the write is the other round trip.
      expect(sent()).toHaveLength(2);
      queries.mockClear();
      pipelined.mockClear();
      const second = await fresh.pos('POST', '/baskets/rt-2', { body: basket });
      expect(second.statusCode).toBe(200);
      expect(sent()).toHaveLength(1);
      expect(sent()[0]).toContain('write_basket');
    } finally {
      queries.mockRestore();
      pipelined.mockRestore();
    }
  });

  it('POS: 401 comes before 400 for a body that does not parse (JSON and XML)', async () => {
    for (const [type, raw] of [
      ['application/json', '{"Positions": ['],
      ['application/xml', '<Basket><Positions>'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/pos/v3/baskets/b-3',
        headers: { 'content-type': type, accept: type },
        payload: raw,
      });
      expect(res.statusCode).toBe(401);
      const own = await term.pos('POST', '/baskets/b-3', {
        raw,
        headers: { 'content-type': type },
        format: type === 'application/json' ? 'json' : 'xml',
      });
      expect(own.statusCode).toBe(400);
    }
  });

  it('operator API: 401 comes before 400 for an invalid or compressed body without the token', async () => {
    const invalid = await t.app.inject({
      method: 'POST',
      url: '/api/admin/v1/merchants',
      headers: { 'content-type': 'application/json' },
      payload: '{"serviceUserName": ',
    });
    expect(invalid.statusCode).toBe(401);
    expect(invalid.json()).toMatchObject({ error: { code: 'unauthorized' } });
    const compressed = await t.app.inject({
      method: 'POST',
      url: '/api/admin/v1/merchants',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: 'Bearer x' },
      payload: NOT_GZIP,
    });
    expect(compressed.statusCode).toBe(401);
    expect(gunzip).not.toHaveBeenCalled();
    const withToken = await t.app.inject({
      method: 'POST',
      url: '/api/admin/v1/merchants',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: '{"serviceUserName": ',
    });
    expect(withToken.statusCode).toBe(400);
  });

  it('each interface renders its own errors: POS {ErrorId, ErrorText}, the operator API {error}', async () => {
    const posMissing = await t.app.inject({
      method: 'GET',
      url: '/api/pos/v3/no-such-thing',
      headers: { accept: 'application/json' },
    });
    expect(posMissing.statusCode).toBe(404);
    expect(posMissing.json()).toEqual({ ErrorId: 1006, ErrorText: 'No such resource.' });
    const posXml = await t.app.inject({
      method: 'GET',
      url: '/api/pos/v3/no-such-thing',
      headers: { accept: 'application/xml' },
    });
    expect(posXml.body).toContain('<ErrorId>1006</ErrorId>');
    const otherVersion = await t.app.inject({
      method: 'GET',
      url: '/api/pos/v2/baskets',
      headers: { accept: 'application/json' },
    });
    expect(otherVersion.json()).toMatchObject({ ErrorId: 1006 });
    const adminMissing = await t.app.inject({
      method: 'GET',
      url: '/api/admin/v1/no-such-thing',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(adminMissing.statusCode).toBe(404);
    expect(adminMissing.json()).toMatchObject({ error: { code: 'not_found' } });
    const elsewhere = await t.app.inject({ method: 'GET', url: '/no-such-thing' });
    expect(elsewhere.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});
