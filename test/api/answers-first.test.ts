import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ADMIN_TOKEN,
  type TestApp,
  type Terminal,
  databases,
  setupTerminal,
  startApp,
} from '../support/harness.js';
import { HttpClient } from '../support/http-pos.js';

describe.each(databases)('answers before new work (docs/decisions.md), on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let baseUrl: string;
  const basket = (productId: string) => ({
    Timestamp: '2026-03-02T16:59:00+01:00',
    HasDiscounts: false,
    CurrencyISO: 'EUR',
    TotalValue: 2.45,
    Positions: [{ PositionId: 1, ProductId: productId, Unit: 0, Amount: 1, CurrentGrossPrice: 2.45 }],
  });
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    // The terminal is remembered from its first upload: the next is decided without a lookup.
    const first = await term.pos('POST', '/baskets/answers-first-1', { body: basket('coffee') });
    expect(first.statusCode).toBe(200);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => t?.close());

  it("a till's upload is read once the turn of the event loop it came in has ended: what that turn found ready with it (a batch's answer) goes first", async () => {
    const order: string[] = [];
    const body = basket(`answers-first-${kind}-${Date.now()}`);
    const sent = JSON.stringify(body);
    // Work the turn holds beside the upload, queued the moment the upload's headers are read; it
    // runs when the turn's ready connections have all been read.
    const onRequest = (): void => {
      setImmediate(() => order.push('the turn ended'));
    };
    t.app.server.prependListener('request', onRequest);
    const parse = JSON.parse.bind(JSON);
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver) => {
      if (text === sent) order.push('the upload read');
      return parse(text, reviver);
    });
    const client = new HttpClient(baseUrl, ADMIN_TOKEN, 1);
    try {
      const res = await client.pos(term, 'POST', '/baskets/answers-first-2', { body });
      expect(res.status).toBe(200);
      expect(order).toEqual(['the turn ended', 'the upload read']);
    } finally {
      spy.mockRestore();
      t.app.server.off('request', onRequest);
      await client.close();
    }
  });
});
