import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';

/** Sends raw bytes and returns all the server answered until it closed the connection. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolveRaw) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString('utf8')));
    socket.on('error', () => {});
    socket.on('close', () => resolveRaw(answer));
    socket.on('connect', () => socket.write(bytes));
    setTimeout(() => socket.destroy(), 10_000).unref();
  });
}

function bodyOf(answer: string): unknown {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
}

// No database is involved: these answers come before any route runs.
describe('framework-level errors answer in the service error format', () => {
  const kind = databases[0] ?? 'pglite';
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t?.close());

  it('a path segment longer than the router takes answers 414 / 1023 (POS) and uri_too_long (operator)', async () => {
    const long = 'B'.repeat(500);
    const pos = await t.app.inject({
      method: 'POST',
      url: `/api/pos/v3/baskets/${long}`,
      headers: { accept: 'application/json' },
    });
    expect(pos.statusCode).toBe(414);
    expect(pos.json()).toEqual({
      ErrorId: 1023,
      ErrorText: 'The URL or one of its path segments is too long.',
    });
    const xml = await t.app.inject({ method: 'POST', url: `/api/pos/v3/baskets/${long}` });
    expect(xml.statusCode).toBe(414);
    expect(xml.body).toContain('<ErrorId>1023</ErrorId>');
    const admin = await t.app.inject({ url: `/api/admin/v1/merchants/${long}/trackingUnits` });
    expect(admin.statusCode).toBe(414);
    expect(admin.json()).toEqual({
      error: {
        code: 'uri_too_long',
        message: 'The URL or one of its path segments is too long.',
        requestId: expect.any(String),
      },
    });
  });

  it('a malformed percent-encoding in the path answers 400 / 1026 (POS) and invalid_url (operator)', async () => {
    const pos = await t.app.inject({
      method: 'POST',
      url: '/api/pos/v3/baskets/%E0%A4%A',
      headers: { accept: 'application/json' },
    });
    expect(pos.statusCode).toBe(400);
    expect(pos.json()).toEqual({
      ErrorId: 1026,
      ErrorText: 'The URL is not valid (malformed percent-encoding).',
    });
    const admin = await t.app.inject({ url: '/api/admin/v1/merchants/%E0%A4%A/trackingUnits' });
    expect(admin.statusCode).toBe(400);
    expect(admin.json()).toMatchObject({ error: { code: 'invalid_url' } });
  });

  it('headers larger than the server takes answer 431 / 1024 in the format the request asked for', async () => {
    const big = 'a'.repeat(20_000);
    const pos = await raw(
      port,
      `GET /api/pos/v3/merchants HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nX-Big: ${big}\r\n\r\n`,
    );
    expect(pos).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(pos)).toEqual({
      ErrorId: 1024,
      ErrorText: 'The request line and headers are larger than the service accepts.',
    });
    const posXml = await raw(port, `GET /api/pos/v3/merchants HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`);
    expect(posXml).toMatch(/^HTTP\/1\.1 431 /);
    expect(posXml).toContain('<Error><ErrorId>1024</ErrorId>');
    const admin = await raw(port, `GET /api/admin/v1/merchants HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`);
    expect(admin).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(admin)).toMatchObject({ error: { code: 'header_fields_too_large' } });
  });

  it('a URL longer than the header limit answers 431 / 1024 too, never a bare framework text', async () => {
    const answer = await raw(
      port,
      `GET /api/pos/v3/baskets/${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('<ErrorId>1024</ErrorId>');
  });

  it('a request that is not HTTP answers 400 bad_request', async () => {
    const answer = await raw(port, 'HELLO THERE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(answer)).toEqual({
      error: {
        code: 'bad_request',
        message: 'The request is not valid HTTP.',
        requestId: expect.any(String),
      },
    });
    const badHeader = await raw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(badHeader).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(badHeader)).toMatchObject({ error: { code: 'bad_request' } });
  });
});
