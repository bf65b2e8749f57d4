import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, orderBody, setupCheckout } from '../checkout/checkout-support.js';

const SYNTAX = 'Body has syntax errors and cannot be deserialised.';

describe.each(databases)('errors that help, and a request id on every answer, on %s', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  const lines: string[] = [];
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => {
    warnings.push(w);
  };
  beforeAll(async () => {
    process.on('warning', onWarning);
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        callback();
      },
    });
    t = await startApp(kind, {}, {}, { logger: { level: 'info', stream } });
    c = await setupCheckout(t);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await t?.close();
  });

  it('a well-formed body with wrong types lists every problem with its field pointer, and says no syntax error', async () => {
    const p = await c.profile();
    const res = await c.call('POST', `/api/v1/profiles/${p.card}/topUps`, {
      amount: 'ten',
      currency: { code: 'EUR' },
    });
    expect(res.statusCode).toBe(400);
    const { error } = res.json() as {
      error: { code: string; message: string; details: { problems: unknown[] }; requestId: string };
    };
    expect(error.code).toBe('invalid_request');
    expect(error.message).not.toContain('syntax');
    expect(error.details.problems).toEqual(
      expect.arrayContaining([
        { in: 'body', pointer: '/amount', message: 'must be integer' },
        { in: 'body', pointer: '/currency', message: 'must be string' },
      ]),
    );
    expect(error.message).toContain('/amount must be integer');
    expect(error.message).toContain('/currency must be string');
  });

  it('an order names the position: /positions/2/quantity, and a missing field by its own pointer', async () => {
    const p = await c.profile();
    const body = orderBody(c, p.card, [
      ['1001', 1],
      ['1002', 1],
      ['1003', 1],
    ]);
    const positions = body.positions as Record<string, unknown>[];
    (positions[2] as Record<string, unknown>).quantity = 'two';
    delete (positions[0] as Record<string, unknown>).productPlu;
    const res = await c.order(body);
    expect(res.statusCode).toBe(400);
    const pointers = (res.json().error.details.problems as { pointer: string }[]).map((x) => x.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/positions/2/quantity', '/positions/0/productPlu']));
  });

  it('"no limit" is null: remainingTopUpAmount and the limits of a profile without any, before and after a top-up', async () => {
    const p = await c.profile();
    const read = async () => (await c.call('GET', `/api/v1/profiles/${p.card}`)).json().balance;
    expect(await read()).toMatchObject({
      remainingTopUpAmount: null,
      config: {
        maxAmount: null,
        maxSingleTopUpAmount: null,
        minSingleTopUpAmount: null,
        maxMonthlyTopUpAmount: null,
      },
    });
    expect(
      (await c.call('POST', `/api/v1/profiles/${p.card}/topUps`, { amount: 2_000, currency: 'EUR' }))
        .statusCode,
    ).toBe(201);
    expect((await read()).remainingTopUpAmount).toBeNull();
    const limited = await c.profile({ balanceConfig: { maxAmount: 10_000 } });
    const after = (await c.call('GET', `/api/v1/profiles/${limited.card}`)).json().balance;
    expect(after.remainingTopUpAmount).toBe(10_000);
  });

  it('"syntax error" only for bytes that do not parse', async () => {
    const p = await c.profile();
    const res = await c.call('POST', `/api/v1/profiles/${p.card}/topUps`, undefined, {
      'content-type': 'application/json',
    });
    const broken = await t.app.inject({
      method: 'POST',
      url: `/api/v1/profiles/${p.card}/topUps`,
      headers: { authorization: `Token ${c.accessToken}`, 'content-type': 'application/json' },
      payload: '{"amount": 10,',
    });
    expect(res.statusCode).toBe(400);
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error.message).toContain(SYNTAX);
  });

  it('Request-Id on every answer: the sane X-Request-Id echoed, else one made; JSON error bodies name it', async () => {
    const sent = await c.call('GET', '/api/v1/profiles/nobody', undefined, {
      'x-request-id': 'shop-4711:a/b',
    });
    expect(sent.statusCode).toBe(404);
    expect(sent.headers['request-id']).toBe('shop-4711:a/b');
    expect(sent.json().error.requestId).toBe('shop-4711:a/b');

    const insane = await c.call('GET', '/api/v1/profiles/nobody', undefined, { 'x-request-id': 'a b"c' });
    expect(insane.headers['request-id']).toMatch(/^req_[a-z2-7]{24}$/);
    expect(insane.json().error.requestId).toBe(insane.headers['request-id']);

    const made = [
      await t.app.inject({ method: 'GET', url: '/healthz' }),
      await t.app.inject({ method: 'GET', url: '/openapi.json' }),
      await t.app.inject({ method: 'GET', url: '/nowhere' }),
      await t.app.inject({ method: 'GET', url: '/api/pos/v3/merchants' }),
      await t.admin('GET', '/merchants'),
      await t.app.inject({ method: 'GET', url: '/portal/api/v1/me' }),
    ];
    const ids = made.map((r) => String(r.headers['request-id']));
    for (const id of ids) expect(id).toMatch(/^req_[a-z2-7]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('order refusals decided in the batched order statement name the request too: concurrent orders, and their replay', async () => {
    // The orders go through the order writer's batches (group commit): seen on its outcomes.
    const writer = t.app.services.checkout.orders;
    const place = writer.place.bind(writer);
    const outcomes: string[] = [];
    writer.place = async (write) => {
      const outcome = await place(write);
      outcomes.push(outcome.outcome);
      return outcome;
    };
    try {
      const p = await c.profile({ balance: 250 });
      // 2.20 each against 2.50: one is booked, the others are refused for the balance.
      const charged = () =>
        orderBody(c, p.card, [['1002', 1]], { totalGross: 220, balance: { requestCharge: true } });
      const bodies = Array.from({ length: 4 }, charged);
      const keys = bodies.map(() => randomUUID());
      const answers = await Promise.all(bodies.map((b, i) => c.order(b, { key: keys[i] })));
      // One basketId ordered twice at once under two keys: one of them is refused, order_exists.
      const twice = orderBody(c, p.card, [['1004', 1]], { totalGross: 100 });
      const pair = await Promise.all([c.order(twice), c.order(twice)]);
      expect(outcomes.filter((o) => o === 'refused').length).toBe(4);
      const refused = [...answers, ...pair].filter((a) => a.statusCode !== 200);
      expect(refused.map((a) => [a.statusCode, a.json().error.code]).sort()).toEqual([
        [409, 'order_exists'],
        [422, 'insufficient_balance'],
        [422, 'insufficient_balance'],
        [422, 'insufficient_balance'],
      ]);
      for (const a of refused) {
        expect(a.json()).toEqual({
          error: { code: expect.any(String), message: expect.any(String), requestId: expect.any(String) },
        });
        expect(a.json().error.requestId).toBe(a.headers['request-id']);
      }
      // The replay of a refusal is the first answer byte for byte, naming the first request.
      const first = answers.findIndex((a) => a.statusCode === 422);
      const again = await c.order(bodies[first], { key: keys[first] });
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(answers[first]?.body);
      expect(again.headers['request-id']).not.toBe(answers[first]?.headers['request-id']);
    } finally {
      Reflect.deleteProperty(writer, 'place');
    }
  });

  it('an order refused on its own in the order statement names its request', async () => {
    const p = await c.profile({ balance: 100 });
    const res = await c.order(
      orderBody(c, p.card, [['1002', 1]], { totalGross: 220, balance: { requestCharge: true } }),
    );
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: {
        code: 'insufficient_balance',
        message: expect.any(String),
        requestId: res.headers['request-id'],
      },
    });
  });

  it('an order refused on the path of separate statements names its request', async () => {
    const p = await c.profile();
    const res = await c.order(orderBody(c, p.card, [['1002', 1]], { totalGross: 1 }));
    expect(res.statusCode).toBe(422);
    expect(res.json().error.requestId).toBe(res.headers['request-id']);
  });

  it('POS errors keep their documented shape {ErrorId, ErrorText}; the id is in the header', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/pos/v3/merchants/someone/info',
      headers: { accept: 'application/json', 'x-request-id': 'till-1' },
    });
    expect(res.statusCode).toBe(401);
    expect(Object.keys(res.json() as object).sort()).toEqual(['ErrorId', 'ErrorText']);
    expect(res.headers['request-id']).toBe('till-1');
  });

  it('every log line of a request names its id', async () => {
    await c.call('GET', '/api/v1/profiles/nobody', undefined, { 'x-request-id': 'log-me-1' });
    const mine = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.requestId === 'log-me-1');
    expect(mine.length).toBeGreaterThanOrEqual(2);
    const requestLines = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.req !== undefined || l.res !== undefined);
    for (const l of requestLines) expect(typeof l.requestId).toBe('string');
  });

  it('the service is built without a deprecation warning from the libraries it uses', () => {
    // An operator's first start prints what the process warns of: the options the service gives
    // its web framework and logger are the current ones.
    expect(warnings.filter((w) => /deprecat/i.test(`${w.name} ${w.message}`)).map((w) => w.message)).toEqual(
      [],
    );
  });

  it('the API document shows Request-Id on every response', () => {
    const doc = t.app.swagger() as unknown as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>
      >;
    };
    let count = 0;
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        for (const r of Object.values(op.responses)) {
          expect(r.headers?.['Request-Id']).toBeDefined();
          count += 1;
        }
      }
    }
    expect(count).toBeGreaterThan(100);
  });
});
