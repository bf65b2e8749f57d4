import { type AddressInfo, type Socket, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestApp,
  type Terminal,
  databases,
  posCall,
  setupTerminal,
  sortimentIdOf,
  startApp,
} from '../support/harness.js';

/**
 * How many bulk uploads run at once (docs/decisions.md, "Sortiment"): one per
 * terminal and two per process by default. A slot is taken after authentication and before the
 * body is read; a refused upload answers 429 / 1050 (the terminal's limit) or 503 / 1051 (the
 * process's) with Retry-After and changes nothing; the slot comes back when an upload ends, in
 * error too, and when its client goes away.
 */

const article = (plu: string) => ({ PLU: plu, Name: [{ lang: 'de', val: `Artikel ${plu}` }] });
const bodyOf = (prefix: string, n: number) =>
  JSON.stringify({ Articles: Array.from({ length: n }, (_, i) => article(`${prefix}-${i}`)) });

/** A second activated terminal of the merchant of `term`, registered with its DevKey. */
async function secondTerminal(t: TestApp, term: Terminal): Promise<Terminal> {
  const r = await t.app.inject({
    method: 'GET',
    url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(term.serviceUserName)}&outletId=${term.outletId}&instanceName=Till%202`,
    headers: { devkey: term.devKey, accept: 'application/json' },
  });
  const { trackingUnitId, checksumSecret } = r.json() as { trackingUnitId: string; checksumSecret: string };
  expect((await t.admin('POST', `/trackingUnits/${trackingUnitId}/activate`)).statusCode).toBe(200);
  return {
    ...term,
    trackingUnitId,
    checksumSecret,
    pos: (method, path, request = {}) =>
      posCall(t, { devKey: term.devKey, trackingUnitId, checksumSecret }, method, path, request),
  };
}

/**
 * A bulk upload over a real connection whose body is sent only in part: it holds its slot until
 * `finish` sends the rest (and resolves with the answer) or `abort` closes the connection.
 */
function openUpload(
  port: number,
  term: Terminal,
  sid: string,
  body: string,
): { finish(): Promise<string>; abort(): void; answered: Promise<string> } {
  const socket: Socket = connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
  socket.on('error', () => {});
  const answered = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  const bytes = Buffer.from(body, 'utf8');
  const half = Math.floor(bytes.length / 2);
  socket.on('connect', () => {
    socket.write(
      `POST /api/pos/v3/sortiments/${sid}/bulkUpload?changedArticlesOnly=true HTTP/1.1\r\n` +
        `Host: 127.0.0.1\r\nDevKey: ${term.devKey}\r\ntrackingUnitId: ${term.trackingUnitId}\r\n` +
        `Content-Type: application/json\r\nAccept: application/json\r\nConnection: close\r\n` +
        `Content-Length: ${bytes.length}\r\n\r\n`,
    );
    socket.write(bytes.subarray(0, half));
  });
  return {
    answered,
    finish: () => {
      socket.write(bytes.subarray(half));
      return answered;
    },
    abort: () => socket.destroy(),
  };
}

describe.each(databases)('concurrent bulk uploads on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let port: number;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t?.close());

  const plus = async (who: Terminal, sid: string): Promise<string[]> => {
    const res = await who.pos('GET', `/sortiments/${sid}/articles`, { query: { pageSize: '1000' } });
    return (res.json() as { Articles: { PLU: string }[] }).Articles.map((a) => a.PLU).sort();
  };
  const upload = (who: Terminal, sid: string, body: string, format: 'json' | 'xml' = 'json') =>
    who.pos('POST', `/sortiments/${sid}/bulkUpload`, {
      query: { changedArticlesOnly: 'true' },
      raw: body,
      headers: { 'content-type': format === 'json' ? 'application/json' : 'application/xml' },
      format,
    });
  /** Waits until the server has taken the open upload's slot (its headers were read). */
  const slotTaken = async (running: number): Promise<void> => {
    for (let i = 0; i < 200 && t.app.services.sortiment.bulkSlots.inUse < running; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(t.app.services.sortiment.bulkSlots.inUse).toBe(running);
  };

  it('two concurrent uploads from one terminal: the second is 429 / 1050 with Retry-After and changes nothing', async () => {
    const sid = await sortimentIdOf(term, `one-terminal-${kind}`);
    const first = openUpload(port, term, sid, bodyOf('a', 50));
    await slotTaken(1);
    const refused = await upload(term, sid, bodyOf('b', 5));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.json()).toMatchObject({ ErrorId: 1050 });
    const refusedXml = await upload(term, sid, '<BulkUpload><Articles/></BulkUpload>', 'xml');
    expect(refusedXml.statusCode).toBe(429);
    expect(refusedXml.body).toContain('<ErrorId>1050</ErrorId>');
    expect(await first.finish()).toMatch(/^HTTP\/1\.1 200/);
    expect(await plus(term, sid)).toEqual(Array.from({ length: 50 }, (_, i) => `a-${i}`).sort());
    expect(t.app.services.sortiment.bulkSlots.inUse).toBe(0);
    // The slot is free again: the next upload of the terminal goes through.
    expect((await upload(term, sid, bodyOf('b', 5))).statusCode).toBe(200);
  });

  it('the slot is freed when the client goes away while sending its body', async () => {
    const sid = await sortimentIdOf(term, `aborted-${kind}`);
    const gone = openUpload(port, term, sid, bodyOf('x', 50));
    await slotTaken(1);
    gone.abort();
    await gone.answered;
    await slotTaken(0);
    expect((await upload(term, sid, bodyOf('y', 3))).statusCode).toBe(200);
    expect(await plus(term, sid)).toEqual(['y-0', 'y-1', 'y-2']);
  });

  it('the slot is freed when an upload ends in error (body refused, items refused)', async () => {
    const sid = await sortimentIdOf(term, `errors-${kind}`);
    expect((await upload(term, sid, '{"Articles": [')).statusCode).toBe(400);
    expect((await upload(term, sid, JSON.stringify({ Articles: [{ PLU: '1' }] }))).statusCode).toBe(400);
    expect((await upload(term, '999999', bodyOf('z', 1))).statusCode).toBe(400);
    expect(t.app.services.sortiment.bulkSlots.inUse).toBe(0);
    expect((await upload(term, sid, bodyOf('z', 2))).statusCode).toBe(200);
  });

  it('the process cap: with as many uploads running as it takes, another terminal is 503 / 1051', async () => {
    const sid = await sortimentIdOf(term, `process-${kind}`);
    const others = [await secondTerminal(t, term), await secondTerminal(t, term)];
    const [a, b] = others as [Terminal, Terminal];
    const first = openUpload(port, term, sid, bodyOf('p', 20));
    const second = openUpload(port, a, sid, bodyOf('q', 20));
    await slotTaken(2);
    const refused = await upload(b, sid, bodyOf('r', 5));
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.json()).toMatchObject({ ErrorId: 1051 });
    expect(await first.finish()).toMatch(/^HTTP\/1\.1 200/);
    expect(await second.finish()).toMatch(/^HTTP\/1\.1 200/);
    const stored = await plus(term, sid);
    expect(stored.filter((p) => p.startsWith('r-'))).toEqual([]);
    expect(stored).toHaveLength(40);
    expect((await upload(b, sid, bodyOf('r', 5))).statusCode).toBe(200);
  });
});
