import { type Socket, connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BULK_HEAD_START_MS, loadConfig } from '../../src/config.js';
import {
  ADMIN_TOKEN,
  type TestApp,
  type Terminal,
  databases,
  setupTerminal,
  sortimentIdOf,
  startApp,
} from '../support/harness.js';

interface Trickled {
  /** What the server answered before it closed the connection. */
  answer: string;
  /** From the first byte sent until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * A slow client: sends `head`, then `step` every `everyMs` (a text, or the next bytes of a body
 * until it answers null) until the server closes the connection or `giveUpMs` passes (then the
 * connection counts as never closed).
 */
function trickle(
  port: number,
  head: string,
  everyMs: number,
  giveUpMs: number,
  step: string | (() => Uint8Array | null) = 'x',
): Promise<Trickled> {
  return new Promise((resolveTrickle) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
    socket.on('error', () => {});
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        const chunk = typeof step === 'string' ? step : step();
        if (chunk !== null && !socket.destroyed && socket.writable) socket.write(chunk);
      }, everyMs);
    });
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      const closedAfterMs = Date.now() - started;
      resolveTrickle({
        answer,
        closedAfterMs: closedAfterMs >= giveUpMs ? Number.POSITIVE_INFINITY : closedAfterMs,
      });
    });
  });
}

const LIMITS = {
  headersTimeoutMs: 1_500,
  requestTimeoutMs: 2_000,
  keepAliveTimeoutMs: 1_500,
  bulkMinBytesPerSecond: 1_024,
  // The service's head start is 10 s (below: no setting changes it); the rate after it is the rule.
  bulkHeadStartMs: 2_000,
};
/** Far above each limit (a loaded machine), far below what the server allowed before (never, or 60-90 s). */
const CUT_WITHIN_MS = 20_000;
const GIVE_UP_MS = 45_000;

describe('the head start of a bulk upload', () => {
  it('is 10 s in every configuration: no environment variable changes it', () => {
    expect(BULK_HEAD_START_MS).toBe(10_000);
    for (const NODE_ENV of ['production', 'development', 'test']) {
      const env = { NODE_ENV, BULK_HEAD_START_MS: '1000', DATA_DIR: '/tmp/punchcard-x' };
      expect(loadConfig(env).bulkHeadStartMs).toBe(BULK_HEAD_START_MS);
    }
  });
});

describe.each(databases)('request time limits on a listening server on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let port: number;
  let sid: string;
  let pacedTerm: Terminal;
  let pacedSid: string;
  beforeAll(async () => {
    t = await startApp(kind, LIMITS);
    term = await setupTerminal(t);
    sid = await sortimentIdOf(term, 'limits');
    // The paced upload runs beside the trickled one: a terminal of its own (a terminal runs one bulk
    // upload at a time, 1050).
    pacedTerm = await setupTerminal(t);
    pacedSid = await sortimentIdOf(pacedTerm, 'limits');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t?.close());

  const posHead = (method: string, path: string, length: number, who: Terminal = term): string =>
    `${method} /api/pos/v3${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nDevKey: ${who.devKey}\r\n` +
    `trackingUnitId: ${who.trackingUnitId}\r\nAccept: application/json\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  const basket = JSON.stringify({ Timestamp: '2026-01-01T00:00:00Z', HasDiscounts: false });

  // The three tests wait out time limits of one listening server, each on its own connections: they
  // wait together, not one after the other.
  it.concurrent(
    'trickling clients are cut off (headers, a basket body, a compressed one, a bulk upload body) while a normal client is served meanwhile',
    async () => {
      const started = Date.now();
      const headers = Array.from({ length: 20 }, () =>
        trickle(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 300, GIVE_UP_MS),
      );
      const bodies = Array.from({ length: 20 }, (_, i) =>
        trickle(port, posHead('POST', `/baskets/slow-${i}`, basket.length), 300, GIVE_UP_MS, ' '),
      );
      // A compressed body is timed like any other: the bytes on the wire count, not the inflated ones.
      const gzipped = gzipSync(basket);
      let sent = 0;
      const compressed = trickle(
        port,
        posHead('POST', '/baskets/slow-gzip', gzipped.length).replace(
          'Content-Type',
          'Content-Encoding: gzip\r\nContent-Type',
        ),
        300,
        GIVE_UP_MS,
        () => (sent < gzipped.length ? gzipped.subarray(sent, ++sent) : null),
      );
      const bulk = trickle(
        port,
        posHead('POST', `/sortiments/${sid}/bulkUpload?changedArticlesOnly=true`, 10_000_000),
        300,
        GIVE_UP_MS,
        ' ',
      );

      // Meanwhile, while all of them hold their connections, an ordinary till is served as usual.
      await new Promise((r) => setTimeout(r, 500));
      const ordinary = await fetch(`http://127.0.0.1:${port}/api/pos/v3/baskets/ordinary`, {
        method: 'POST',
        headers: {
          devkey: term.devKey,
          trackingunitid: term.trackingUnitId,
          accept: 'application/json',
          'content-type': 'application/json',
        },
        body: basket,
      });
      expect(ordinary.status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(LIMITS.requestTimeoutMs + 10_000);

      for (const h of await Promise.all(headers)) {
        expect(h.closedAfterMs).toBeLessThan(CUT_WITHIN_MS);
        expect(h.answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(h.answer).toContain('{"error":{"code":"headers_timeout"');
      }
      for (const b of await Promise.all(bodies)) {
        expect(b.closedAfterMs).toBeLessThan(CUT_WITHIN_MS);
        expect(b.answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(b.answer).toContain('{"ErrorId":1021,');
      }
      const slowGzip = await compressed;
      expect(slowGzip.closedAfterMs).toBeLessThan(CUT_WITHIN_MS);
      expect(slowGzip.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(slowGzip.answer).toContain('{"ErrorId":1021,');
      const slowBulk = await bulk;
      expect(slowBulk.closedAfterMs).toBeGreaterThanOrEqual(LIMITS.bulkHeadStartMs);
      expect(slowBulk.closedAfterMs).toBeLessThan(LIMITS.bulkHeadStartMs + CUT_WITHIN_MS);
      expect(slowBulk.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(slowBulk.answer).toContain('{"ErrorId":1022,');
    },
    120_000,
  );

  it.concurrent(
    'a bulk upload slower than the request time limit but above the minimum rate goes through',
    async () => {
      const padding = 10_000;
      const body = `{"Groups":[],"Articles":[]}${' '.repeat(padding)}`;
      const step = ' '.repeat(1_000);
      const payload = body.slice(0, body.length - padding);
      const started = Date.now();
      // 1,000 bytes every 500 ms (2,000 B/s, above the 1,024 B/s minimum) for 5 s: longer than the
      // request time limit and the head start after which the rate counts, together.
      const res = await new Promise<string>((resolveRes) => {
        const socket = connect(port, '127.0.0.1');
        let answer = '';
        let sent = 0;
        socket.on('data', (c: Buffer) => {
          answer += c.toString('utf8');
          if (answer.includes('\r\n\r\n') && answer.includes('}')) socket.destroy();
        });
        socket.on('close', () => resolveRes(answer));
        socket.on('connect', () => {
          socket.write(
            posHead(
              'POST',
              `/sortiments/${pacedSid}/bulkUpload?changedArticlesOnly=true`,
              body.length,
              pacedTerm,
            ),
          );
          socket.write(payload);
          const timer = setInterval(() => {
            socket.write(step);
            sent += step.length;
            if (sent >= padding) clearInterval(timer);
          }, 500);
        });
      });
      expect(res).toMatch(/^HTTP\/1\.1 200 /);
      expect(res).toContain('{"Created":0,"Updated":0,"Deleted":0,"Unchanged":0}');
      expect(Date.now() - started).toBeGreaterThan(LIMITS.bulkHeadStartMs + LIMITS.requestTimeoutMs);
    },
    60_000,
  );

  it.concurrent(
    'an idle kept-alive connection is closed after the keep-alive limit',
    async () => {
      const started = Date.now();
      const idle = await trickle(
        port,
        'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
        3_600_000,
        GIVE_UP_MS,
      );
      expect(idle.answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(idle.closedAfterMs).toBeGreaterThanOrEqual(LIMITS.keepAliveTimeoutMs - 100);
      expect(Date.now() - started).toBeLessThan(CUT_WITHIN_MS);
    },
    60_000,
  );
});

describe('closing the server', () => {
  const kind = databases[0] ?? 'pglite';

  it('does not wait for a connection that has sent nothing, nor for an idle kept-alive one', async () => {
    // A header time limit far above the wait allowed below: the close alone must end them.
    const t = await startApp(kind, { headersTimeoutMs: 120_000, keepAliveTimeoutMs: 120_000 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const silent = trickle(port, '', 3_600_000, GIVE_UP_MS);
    const kept = trickle(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 3_600_000, GIVE_UP_MS);
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    await t.close();
    expect(Date.now() - started).toBeLessThan(CUT_WITHIN_MS);
    expect((await silent).answer).toBe('');
    expect((await silent).closedAfterMs).toBeLessThan(CUT_WITHIN_MS);
    expect((await kept).answer).toMatch(/^HTTP\/1\.1 200 /);
    expect((await kept).closedAfterMs).toBeLessThan(CUT_WITHIN_MS);
  }, 60_000);

  it('a request in flight when the close begins is answered, and its kept-alive connection is closed after it; a request that comes on it meanwhile is served, not refused outside the error catalog', async () => {
    const t = await startApp(kind, { headersTimeoutMs: 120_000, keepAliveTimeoutMs: 120_000 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    // Answered 201 once the body has come whole.
    const body = '{"name": "Till vendor"}';
    const head =
      'POST /api/admin/v1/devKeys HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      `Authorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`;
    /** The rest of the body a second after the head (the close begins between them), then nothing. */
    const rest = (after: string) => {
      let sent = false;
      return () => {
        if (sent) return null;
        sent = true;
        return Buffer.from(body.slice(10) + after);
      };
    };
    const alone = trickle(port, head, 1_000, GIVE_UP_MS, rest(''));
    const followed = trickle(
      port,
      head,
      1_000,
      GIVE_UP_MS,
      rest('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
    );
    await new Promise((r) => setTimeout(r, 400));
    const started = Date.now();
    await t.close();
    expect(Date.now() - started).toBeLessThan(CUT_WITHIN_MS);
    expect((await alone).answer).toMatch(/^HTTP\/1\.1 201 /);
    expect((await alone).closedAfterMs).toBeLessThan(CUT_WITHIN_MS);
    const answers = (await followed).answer.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((a) => a.slice(0, 12))).toEqual(['HTTP/1.1 201', 'HTTP/1.1 200']);
    expect(answers[1]).toMatch(/\r\nconnection: close\r\n/i);
    expect((await followed).closedAfterMs).toBeLessThan(CUT_WITHIN_MS);
  }, 60_000);
});

describe('the connection cap', () => {
  const kind = databases[0] ?? 'pglite';
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startApp(kind, { maxConnections: 10 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t?.close());

  it('connections above MAX_CONNECTIONS are closed on arrival; the ones within it are served', async () => {
    const sockets: Socket[] = [];
    const closedEarly: boolean[] = [];
    for (let i = 0; i < 15; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => {});
      const index = i;
      closedEarly[index] = false;
      s.on('close', () => (closedEarly[index] = true));
      sockets.push(s);
      await new Promise((r) => s.once('connect', r));
    }
    await new Promise((r) => setTimeout(r, 1_000));
    expect(closedEarly.filter(Boolean).length).toBe(5);
    expect(closedEarly.slice(0, 10).some(Boolean)).toBe(false);
    const first = sockets[0];
    if (!first) throw new Error('no socket');
    const answer = await new Promise<string>((resolveAnswer) => {
      first.once('data', (c: Buffer) => resolveAnswer(c.toString('utf8')));
      first.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    for (const s of sockets) s.destroy();
  });
});
