import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examplesFrom } from '../../scripts/api-examples.js';
import { normaliseEntry } from '../../scripts/example-normalise.js';
import { ExampleSchemas, placeholders } from '../../scripts/example-schemas.js';
import { addExamples } from '../../src/wire/openapi-examples.js';
import { type TestApp, startApp } from '../support/harness.js';

interface Media {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface Operation {
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
}

const OPERATIONS = ['get', 'post', 'put', 'patch', 'delete'];

const examplesOf = (m: Media | undefined): unknown[] =>
  m === undefined
    ? []
    : [
        ...(m.example === undefined ? [] : [m.example]),
        ...Object.values(m.examples ?? {}).map((e) => e.value),
      ];

/** Every media type of an operation with its name: the request body's and each answer's. */
function mediaOf(name: string, op: Operation): { where: string; status: string | null; m: Media }[] {
  return [
    ...Object.entries(op.requestBody?.content ?? {}).map(([type, m]) => ({
      where: `${name}: request ${type}`,
      status: null,
      m,
    })),
    ...Object.entries(op.responses ?? {}).flatMap(([status, r]) =>
      Object.entries(r.content ?? {}).map(([type, m]) => ({
        where: `${name}: ${status} ${type}`,
        status,
        m,
      })),
    ),
  ];
}

/**
 * docs/decisions.md, "Examples and webhooks in the reference": "a realistic example on every request
 * and response, taken from the tests' own traffic". Every operation's JSON request body and its
 * JSON success answer carry one (an answer that is no JSON, as CSV, metrics text or 204 without a
 * body, needs none); every example fits its schema and holds no placeholder. An operation a test
 * does not exercise shows up here by name: run the tests that call it, then `npm run docs:examples`.
 */
describe('the API reference shows a realistic example on every operation', () => {
  let t: TestApp;
  let doc: Doc;
  beforeAll(async () => {
    t = await startApp('pglite');
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
  });
  afterAll(async () => {
    await t.close();
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([method]) => OPERATIONS.includes(method))
        .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
    );

  it('every JSON request body and every JSON success answer has an example from the traffic', () => {
    const missing: string[] = [];
    for (const { name, op } of operations()) {
      const body = op.requestBody?.content?.['application/json'];
      if (body && examplesOf(body).length === 0) missing.push(`${name}: request`);
      const json = Object.entries(op.responses ?? {})
        .filter(([status]) => /^2\d\d$/.test(status))
        .flatMap(([, r]) => Object.entries(r.content ?? {}).filter(([type]) => type.includes('json')));
      if (json.length > 0 && !json.some(([, m]) => examplesOf(m).length > 0)) missing.push(`${name}: answer`);
    }
    expect(operations().length).toBeGreaterThan(90);
    expect(missing).toEqual([]);
  });

  it('every example fits its schema and holds no placeholder (no "string", no 9007199254740991, no additionalProp)', () => {
    const schemas = new ExampleSchemas(doc as unknown as Record<string, unknown>);
    const webhooks = Object.entries(doc.webhooks ?? {}).flatMap(([event, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ name: `webhook ${event} ${method}`, op })),
    );
    const wrong: string[] = [];
    let examples = 0;
    for (const { name, op } of [...operations(), ...webhooks]) {
      for (const { where, m } of mediaOf(name, op)) {
        for (const example of examplesOf(m)) {
          examples += 1;
          if (!schemas.fits(m.schema, example)) wrong.push(`${where}: does not fit its schema`);
          for (const at of placeholders(example)) wrong.push(`${where}: placeholder at ${at || '/'}`);
        }
      }
    }
    expect(examples).toBeGreaterThan(200);
    expect(wrong).toEqual([]);
  }, 180_000);

  it('an example that no longer fits its schema is told apart, and so is a placeholder', () => {
    const schemas = new ExampleSchemas(doc as unknown as Record<string, unknown>);
    const page = doc.paths['/api/v1/webhooks']?.get?.responses?.['200']?.content?.['application/json'];
    expect(page?.example).toMatchObject({ data: expect.any(Array), hasMore: expect.any(Boolean) });
    // The list as a bare array, as it was answered before lists answered pages.
    expect(schemas.fits(page?.schema, (page?.example as { data: unknown[] }).data)).toBe(false);
    expect(placeholders({ amount: 9007199254740991, note: 'string', extra: { additionalProp1: 1 } })).toEqual(
      ['/amount', '/note', '/extra/additionalProp1'],
    );
  });

  it('the document leaves out an example recorded before its schema changed: a bare list where a page is answered', () => {
    const page = {
      type: 'object',
      required: ['data', 'hasMore', 'nextCursor'],
      properties: {
        data: { type: 'array' },
        hasMore: { type: 'boolean' },
        nextCursor: { type: ['string', 'null'] },
      },
    };
    const built = (answer: unknown) => {
      const d = {
        components: { schemas: { Page: page } },
        paths: {
          '/things': {
            get: {
              responses: {
                '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Page' } } } },
              },
            },
          },
        },
      };
      addExamples(d, {
        operations: { 'GET /things': { responses: { '200': answer }, headers: {} } },
        webhooks: {},
      });
      return d.paths['/things'].get.responses['200'].content['application/json'] as Media;
    };
    expect(built([{ id: 1 }]).example).toBeUndefined();
    expect(built({ data: [{ id: 1 }] }).example).toBeUndefined();
    expect(built({ data: [{ id: 1 }], hasMore: false, nextCursor: null }).example).toEqual({
      data: [{ id: 1 }],
      hasMore: false,
      nextCursor: null,
    });
  });

  it("an operation's request example is the request that produced its answer example: the fuller answer decides, the fuller request among equal answers", () => {
    const object = { content: { 'application/json': { schema: { type: 'object' } } } };
    const d = { paths: { '/things': { post: { requestBody: object, responses: { '200': object } } } } };
    const exchange = (requestBody: unknown, body: unknown) => ({
      kind: 'exchange' as const,
      method: 'POST',
      route: '/things',
      status: 200,
      headers: {},
      requestBody,
      body,
    });
    const picked = (...entries: ReturnType<typeof exchange>[]) => {
      const op = examplesFrom(entries, d).operations['POST /things'];
      return { request: op?.request, answer: op?.responses['200'] };
    };
    // The fullest request came with a short answer: the pair with the fuller answer is shown.
    expect(
      picked(
        exchange({ name: 'a long name of a thing', note: 'and a note' }, { id: 1 }),
        exchange({ name: 'short' }, { id: 2, name: 'short', explanations: ['why'] }),
      ),
    ).toEqual({ request: { name: 'short' }, answer: { id: 2, name: 'short', explanations: ['why'] } });
    // Equal answers: the fuller request.
    expect(picked(exchange({ name: 'a' }, { id: 1 }), exchange({ name: 'a longer one' }, { id: 2 }))).toEqual(
      {
        request: { name: 'a longer one' },
        answer: { id: 2 },
      },
    );
  });

  it('the fullest example under 2.5 kB is kept, or under half again the shortest answer where every answer of the operation is long', () => {
    const object = { content: { 'application/json': { schema: { type: 'object' } } } };
    const d = { paths: { '/things': { get: { responses: { '200': object } } } } };
    const answer = (filler: number, section: unknown) => ({
      kind: 'exchange' as const,
      method: 'GET',
      route: '/things',
      status: 200,
      headers: {},
      body: { filler: 'x'.repeat(filler), section },
    });
    const shown = (...entries: ReturnType<typeof answer>[]) =>
      (examplesFrom(entries, d).operations['GET /things']?.responses['200'] as { section: unknown }).section;
    // Short answers: the fullest of those under 2.5 kB, not the one over it.
    expect(shown(answer(100, null), answer(300, 'filled'), answer(2600, 'long'))).toBe('filled');
    // Every answer near the bound already (the shortest 2,000 characters): one half again as long is shown.
    expect(shown(answer(2000, null), answer(2600, 'filled'), answer(3200, 'too long'))).toBe('filled');
  });

  it("an example's days and times move together: a period begun before the run reads from its first day to its last, and a client made days back was made before it was revoked", () => {
    const startedAtMs = Date.UTC(2026, 11, 5, 10, 0, 0);
    const entry = {
      kind: 'exchange' as const,
      method: 'GET',
      route: '/things',
      status: 200,
      headers: { 'request-id': 'req_x' },
      body: {
        from: '2026-11-29',
        to: '2026-12-05',
        createdAt: '2026-11-09T14:00:00.000Z',
        revokedAt: '2026-12-05T10:05:00.000Z',
        validFrom: '2026-03-01',
      },
    };
    expect(normaliseEntry(entry, null, startedAtMs).body).toEqual({
      from: '2026-02-24',
      to: '2026-03-02',
      createdAt: '2026-02-04T14:00:00.000Z',
      revokedAt: '2026-03-02T11:30:00.000Z',
      // A value from more than a quarter before the run is the test's own, and kept.
      validFrom: '2026-03-01',
    });
  });

  it("an example's made-up names read the same on every run: the counters in the tests' names by their order, a card's random hex made up", () => {
    const entry = (pid: string, counters: [number, number, number], hex: string) => ({
      kind: 'exchange' as const,
      method: 'GET',
      route: '/things',
      status: 200,
      headers: {},
      body: {
        basketId: `anon-${pid}-${counters[0]}`,
        email: `jonas-${pid}-${counters[1]}@example.org`,
        oldEmail: `jonas-${pid}-${counters[2]}@example.org`,
        tokenId: `K-${hex}`,
        again: `anon-${pid}-${counters[0]}`,
      },
    });
    const first = normaliseEntry(entry('22188', [23, 9, 8], '837eec2c'), '22188', null).body;
    const second = normaliseEntry(entry('31337', [4, 45, 44], 'aacf5ea7'), '31337', null).body;
    expect(second).toEqual(first);
    expect(first).toMatchObject({
      basketId: 'anon-4711-1',
      email: 'jonas-4711-2@example.org',
      oldEmail: 'jonas-4711-3@example.org',
      again: 'anon-4711-1',
    });
    expect((first as { tokenId: string }).tokenId).toMatch(/^K-[0-9a-f]{8}$/);
  });

  it("the dry run's request example is the request of its answer example: the Gold-only stacking campaign with a budget", () => {
    const op = doc.paths['/api/admin/v1/merchants/{serviceUserName}/dryRun']?.post;
    const request = examplesOf(op?.requestBody?.content?.['application/json'])[0] as {
      consumer?: { tiers?: Record<string, string> };
      campaigns?: { name: string }[];
    };
    const answer = examplesOf(op?.responses?.['200']?.content?.['application/json'])[0] as {
      explanations: { name: string; reason: string }[];
    };
    expect(Object.values(request.consumer?.tiers ?? {})).toEqual(['Gold']);
    expect(answer.explanations.map((e) => e.name)).toEqual(
      expect.arrayContaining([
        'Gold members: 10 % more on coffee',
        ...(request.campaigns ?? []).map((c) => c.name),
      ]),
    );
  });
});
