import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntries } from '../src/shared/errors.js';
import {
  ADMIN_TOKEN,
  type TestApp,
  type Terminal,
  databases,
  setupTerminal,
  sortimentIdOf,
  startApp,
} from './support/harness.js';

/**
 * Every path, query, header and body value is checked before use: each operation of the API
 * reference (read from the built app, so an operation added later is walked too) gets hostile
 * values in each of its path and query parameters, POS headers and body fields, with valid
 * credentials. No
 * answer may be a 5xx, and each error must be a catalogued one in its interface's format (the
 * harness also checks every answer against the reference).
 */

interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  minLength?: number;
  minItems?: number;
  default?: unknown;
}

interface Operation {
  method: string;
  path: string;
  parameters: { in: string; name: string; required?: boolean; schema: JsonSchema }[];
  body: JsonSchema | undefined;
}

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Operation['parameters'];
        requestBody?: { content?: Record<string, { schema: JsonSchema }> };
      }
    >
  >;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Values that have broken services: non-finite and huge numbers, hex, signed zero, surrogates. */
const HOSTILE_TEXT = [
  'Infinity',
  'NaN',
  '1e400',
  '-0',
  '0x10',
  '9007199254740993',
  '%ED%A0%80', // an unpaired surrogate, as CESU-8 bytes
  'a%00b', // a NUL character, which no PostgreSQL text holds
  'a'.repeat(3000),
];

/** Header values: numbers a header never holds, a long one, bytes beyond ASCII. */
const HOSTILE_HEADERS = ['1e400', 'a'.repeat(3000), '\u00ff\u00fe;q=NaN'];

/** Raw JSON texts put in place of one body field. */
const HOSTILE_JSON = [
  '1e400',
  '-0',
  '"0x10"',
  '"Infinity"',
  '"\\ud800"',
  '"a\\u0000b"',
  `"${'a'.repeat(100_000)}"`,
  `[${Array.from({ length: 10_001 }, () => '0').join(',')}]`,
];

const PLACEHOLDER = '"__hostile__"';

function resolve(doc: OpenApi, schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema?.$ref) return schema;
  const name = schema.$ref.split('/').pop() ?? '';
  return resolve(doc, doc.components?.schemas?.[name]);
}

function typesOf(schema: JsonSchema): string[] {
  const t = schema.type ?? (schema.properties ? 'object' : undefined);
  if (t !== undefined) return Array.isArray(t) ? t : [t];
  return (schema.anyOf ?? []).flatMap((s) => typesOf(s));
}

/** A plausible value for a schema: required fields filled, the first enum member, minima. */
function sample(doc: OpenApi, raw: JsonSchema | undefined, depth = 0): unknown {
  const schema = resolve(doc, raw);
  if (!schema || depth > 6) return undefined;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const t = typesOf(schema).filter((x) => x !== 'null');
  if (t.includes('object')) {
    const out: Record<string, unknown> = {};
    for (const name of schema.required ?? []) out[name] = sample(doc, schema.properties?.[name], depth + 1);
    return out;
  }
  if (t.includes('array')) {
    const item = sample(doc, schema.items, depth + 1);
    return schema.minItems ? Array.from({ length: schema.minItems }, () => item) : [];
  }
  if (t.includes('integer') || t.includes('number')) return Math.max(1, schema.minimum ?? 1);
  if (t.includes('boolean')) return true;
  if (t.includes('string')) return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  return undefined;
}

/** Paths to the body's fields (nested objects and first array items), at most `limit` of them. */
function fieldPaths(doc: OpenApi, raw: JsonSchema | undefined, limit: number): (string | number)[][] {
  const out: (string | number)[][] = [];
  const walk = (schemaRaw: JsonSchema | undefined, at: (string | number)[], depth: number) => {
    const schema = resolve(doc, schemaRaw);
    if (!schema || out.length >= limit || depth > 3) return;
    const t = typesOf(schema);
    if (t.includes('object') && schema.properties) {
      for (const [name, child] of Object.entries(schema.properties)) {
        out.push([...at, name]);
        walk(child, [...at, name], depth + 1);
      }
    } else if (t.includes('array') && schema.items) {
      walk(schema.items, [...at, 0], depth + 1);
    }
  };
  walk(raw, [], 0);
  return out.slice(0, limit);
}

function withField(base: unknown, path: (string | number)[], value: unknown): unknown {
  const root = structuredClone(base ?? {}) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i] as string | number;
    const next = path[i + 1];
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = typeof next === 'number' ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  }
  node[path[path.length - 1] as string | number] = value;
  return root;
}

function operations(doc: OpenApi): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content ?? {};
      const body = (content['application/json'] ?? Object.values(content)[0])?.schema;
      out.push({ method: method.toUpperCase(), path, parameters: op.parameters ?? [], body });
    }
  }
  return out;
}

const ERROR_IDS = new Set(catalogEntries().map((e) => e.errorId));
const ERROR_CODES = new Set(catalogEntries().map((e) => e.code));

describe.each(databases)('hostile values on every operation (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  const pathValues: Record<string, string> = {};
  const portalHeaders: Record<string, string> = {};

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    const sid = await sortimentIdOf(term, 'hostile');
    await term.pos('POST', '/tokens/card-1');
    Object.assign(pathValues, {
      serviceUserName: term.serviceUserName,
      serviceSortimentId: sid,
      trackingUnitId: term.trackingUnitId,
      basketId: 'b-1',
      id: '1',
      Id: 'g-1',
      PLU: 'p-1',
      version: '1',
      tokenId: 'card-1',
      sortimentId: sid,
    });
    // The merchant portal's API is walked with an owner's session and its CSRF token.
    await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`, {
      email: 'hostile-owner@example.test',
      password: 'hostile-owner-password',
    });
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/portal/api/v1/session',
      payload: { email: 'hostile-owner@example.test', password: 'hostile-owner-password' },
    });
    portalHeaders.cookie = String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
    portalHeaders['x-csrf-token'] = (signedIn.json() as { csrfToken: string }).csrfToken;
  });
  afterAll(async () => {
    await t.close();
  });

  // More than a thousand requests: the walk takes most of a minute on a busy two-core machine.
  it('no hostile path, query or body value answers a 5xx, and every error is catalogued', async () => {
    const doc = t.app.swagger() as unknown as OpenApi;
    // Signing out would end the session the walk uses.
    const ops = operations(doc).filter(
      (op) =>
        op.path.startsWith('/api/') ||
        (op.path.startsWith('/portal/api/') && !(op.method === 'DELETE' && op.path.endsWith('/session'))),
    );
    expect(ops.length).toBeGreaterThan(40);
    const failures: string[] = [];
    let requests = 0;

    for (const op of ops) {
      const isPos = op.path.startsWith('/api/pos/');
      const headers: Record<string, string> = isPos
        ? { devkey: term.devKey, trackingunitid: term.trackingUnitId, accept: 'application/json' }
        : op.path.startsWith('/portal/')
          ? portalHeaders
          : { authorization: `Bearer ${ADMIN_TOKEN}` };
      const baseQuery: Record<string, string> = {};
      for (const p of op.parameters) {
        if (p.in !== 'query' || !p.required) continue;
        if (p.name === 'outletId') baseQuery[p.name] = String(term.outletId);
        else baseQuery[p.name] = String(sample(doc, p.schema) ?? 'x');
      }
      const baseBody = op.body ? sample(doc, op.body) : undefined;

      const send = async (
        what: string,
        pathParams: Record<string, string>,
        query: string,
        body: string | undefined,
        extraHeaders: Record<string, string> = {},
      ) => {
        requests += 1;
        const url =
          op.path.replace(
            /\{([^}]+)\}/g,
            (_m, name: string) => pathParams[name] ?? encodeURIComponent(pathValues[name] ?? '1'),
          ) + (query ? `?${query}` : '');
        const res = await t.app.inject({
          method: op.method as 'POST',
          url,
          headers: {
            ...headers,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...extraHeaders,
          },
          ...(body === undefined ? {} : { payload: body }),
        });
        const where = `${op.method} ${op.path} ${what}: ${res.statusCode}`;
        if (res.statusCode >= 500) {
          failures.push(`${where} ${res.body.slice(0, 200)}`);
          return;
        }
        if (res.statusCode < 400) return;
        // Refused by the framework before any route is chosen (a path that is not valid
        // percent-encoded UTF-8, a path parameter over its length): no route value is read.
        if (/"code":"FST_ERR_(BAD_URL|MAX_PARAM_LENGTH)"/.test(res.body)) return;
        let answer: { ErrorId?: unknown; ErrorText?: unknown; error?: { code?: unknown } };
        try {
          answer = JSON.parse(res.body) as typeof answer;
        } catch {
          failures.push(`${where} not JSON: ${res.body.slice(0, 200)}`);
          return;
        }
        const catalogued = isPos
          ? ERROR_IDS.has(answer.ErrorId as number) && typeof answer.ErrorText === 'string'
          : ERROR_CODES.has(answer.error?.code as string);
        if (!catalogued) failures.push(`${where} not a catalogued error: ${res.body.slice(0, 200)}`);
      };
      const queryText = (q: Record<string, string>) =>
        Object.entries(q)
          .map(([k, v]) => `${encodeURIComponent(k)}=${v}`)
          .join('&');
      const encodedBase = Object.fromEntries(
        Object.entries(baseQuery).map(([k, v]) => [k, encodeURIComponent(v)]),
      );
      const bodyText = baseBody === undefined ? undefined : JSON.stringify(baseBody);

      for (const p of op.parameters) {
        if (p.in !== 'path' && p.in !== 'query') continue;
        for (const value of HOSTILE_TEXT) {
          const hostile = value.startsWith('%') ? value : encodeURIComponent(value);
          if (p.in === 'path')
            await send(
              `path ${p.name}=${value.slice(0, 20)}`,
              { [p.name]: hostile },
              queryText(encodedBase),
              bodyText,
            );
          else
            await send(
              `query ${p.name}=${value.slice(0, 20)}`,
              {},
              queryText({ ...encodedBase, [p.name]: hostile }),
              bodyText,
            );
        }
        if (p.in === 'query') {
          const many = Array.from({ length: 1000 }, (_v, i) => `${encodeURIComponent(p.name)}=${i}`).join(
            '&',
          );
          await send(
            `query ${p.name} repeated 1000 times`,
            {},
            `${queryText(encodedBase)}&${many}`,
            bodyText,
          );
        }
      }
      if (isPos) {
        for (const name of [
          'devkey',
          'trackingunitid',
          'securitytoken',
          'accept-language',
          'if-none-match',
        ]) {
          for (const value of HOSTILE_HEADERS) {
            await send(`header ${name}=${value.slice(0, 20)}`, {}, queryText(encodedBase), bodyText, {
              [name]: value,
            });
          }
        }
      }
      if (op.body) {
        for (const path of fieldPaths(doc, op.body, 10)) {
          const template = JSON.stringify(withField(baseBody, path, '__hostile__'));
          for (const raw of HOSTILE_JSON) {
            await send(
              `body ${path.join('.')}=${raw.slice(0, 20)}`,
              {},
              queryText(encodedBase),
              template.replace(PLACEHOLDER, raw),
            );
          }
        }
      }
    }
    expect(requests).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
  }, 240_000);
});
