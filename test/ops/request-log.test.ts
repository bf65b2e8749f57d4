import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { basket, tokens } from '../cards/cards-support.js';

const CARD = 'CARD-LOG-4711';

describe.each(databases)('the info log names no card ids and no amounts on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  const lines: string[] = [];
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        callback();
      },
    });
    t = await startApp(kind, {}, {}, { logger: { level: 'info', stream } });
    term = await setupTerminal(t);
  });
  afterAll(() => t?.close());

  it('card operations and a basket with a card are logged by route pattern and query names only', async () => {
    const card = tokens(term);
    expect((await card.register(CARD, { tokentype: 'gift' })).statusCode).toBe(200);
    expect((await card.add(CARD, '987.65')).statusCode).toBe(200);
    expect((await card.withdraw(CARD, '123.45', 'till-7-bill-4242')).statusCode).toBe(200);
    expect((await card.add(CARD, '0.001')).statusCode).toBe(400);
    const upload = await term.pos('POST', '/baskets/B-LOG-1', {
      body: basket,
      query: { giftCardId: CARD },
    });
    expect(upload.statusCode).toBe(200);
    const unmatched = await term.pos('POST', `/tokenz/${CARD}/addBalance`, {
      query: { balanceToAdd: '555.55' },
    });
    expect(unmatched.statusCode).toBe(404);

    // The logger's own numbers (clock, process id, response time) carry nothing of a request and may
    // hold any digits (a time of …54242… holds "4242"): the secrets are looked for in everything else.
    const log = lines
      .map((line) => {
        const {
          time: _time,
          pid: _pid,
          responseTime: _responseTime,
          // Random characters, digits among them: an id is no secret of the request.
          requestId: _requestId,
          ...rest
        } = JSON.parse(line) as Record<string, unknown>;
        return JSON.stringify(rest);
      })
      .join('\n');
    expect(lines.length).toBeGreaterThan(10);
    for (const secret of [CARD, '987.65', '123.45', '0.001', '4242', 'B-LOG-1', '555.55']) {
      expect(log).not.toContain(secret);
    }
    expect(log).toContain('"url":"/api/pos/v3/tokens/:id/addBalance?balanceToAdd=…"');
    expect(log).toContain(
      '"url":"/api/pos/v3/tokens/:id/withdrawBalance?balanceToWithdraw=…&transactionId=…"',
    );
    expect(log).toContain('"url":"/api/pos/v3/baskets/:basketId?giftCardId=…"');
    expect(log).toContain('"url":"/api/pos/v3/tokenz/*/addBalance?balanceToAdd=…"');
  });
});
