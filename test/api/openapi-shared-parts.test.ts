import { mkdtempSync, rmSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shareRepeatedParts } from '../../src/wire/openapi-shared-parts.js';
import { lintDocument } from '../support/api-tools.js';
import { type TestApp, startApp } from '../support/harness.js';

type Json = Record<string, unknown>;

/** The document with every `#/components/...` reference of `kinds` replaced by what it names. */
function resolve(document: Json, kinds: string[]): unknown {
  const components = document.components as Record<string, Json>;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value !== 'object' || value === null) return value;
    const ref = (value as Json).$ref;
    if (typeof ref === 'string') {
      const [, , kind, name] = ref.split('/');
      if (kind !== undefined && name !== undefined && kinds.includes(kind))
        return walk(components[kind]?.[name]);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
  };
  return walk(document.paths);
}

const header = { schema: { type: 'string' }, description: 'The request’s id.' };
const unauthorized = {
  description: 'Authorization missing or wrong (unauthorized).',
  headers: { 'Request-Id': header },
};
const small: Json = {
  openapi: '3.1.0',
  paths: {
    '/a': {
      get: {
        responses: { '200': { description: 'A', headers: { 'Request-Id': header } }, '401': unauthorized },
      },
    },
    '/b': {
      post: { responses: { '201': { description: 'B' }, '401': unauthorized } },
      parameters: [],
    },
  },
  components: { schemas: { Thing: { type: 'object' } }, headers: { 'Request-Id': { schema: {} } } },
};

describe("the API reference page's document: repeated parts written once", () => {
  it('an answer two operations give alike is one component; an answer of one operation stays where it is', () => {
    const before = JSON.stringify(small);
    const shared = shareRepeatedParts(small);
    expect(JSON.stringify(small)).toBe(before);
    const paths = shared.paths as Record<string, Record<string, { responses: Json }>>;
    expect(paths['/a']?.get?.responses['401']).toEqual({ $ref: '#/components/responses/status-401' });
    expect(paths['/b']?.post?.responses['401']).toEqual({ $ref: '#/components/responses/status-401' });
    expect(paths['/b']?.post?.responses['201']).toEqual({ description: 'B' });
    // The document's own components keep their names; a new one with a taken name gets a number.
    const components = shared.components as Record<string, Json>;
    expect(components.schemas).toEqual({ Thing: { type: 'object' } });
    expect(components.headers?.['Request-Id']).toEqual({ schema: {} });
    expect(components.headers?.['Request-Id-2']).toEqual(header);
    expect((paths['/a']?.get?.responses['200'] as Json).headers).toEqual({
      'Request-Id': { $ref: '#/components/headers/Request-Id-2' },
    });
    expect(resolve(shared, ['headers', 'responses'])).toEqual(resolve(small, []));
  });

  describe('the service', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp('pglite');
    });
    afterAll(async () => t?.close());

    it('/docs/json says what /openapi.json says, in little more than half the bytes', async () => {
      const full = await t.app.inject({ method: 'GET', url: '/openapi.json' });
      const page = await t.app.inject({ method: 'GET', url: '/docs/json' });
      expect(page.statusCode).toBe(200);
      const fullDocument = full.json<Json>();
      const pageDocument = page.json<Json>();
      expect(resolve(pageDocument, ['headers', 'responses'])).toEqual(fullDocument.paths);
      const { headers, responses, ...rest } = pageDocument.components as Json;
      expect(rest).toEqual(fullDocument.components);
      expect(Object.keys(headers as Json).length).toBeGreaterThan(0);
      expect(Object.keys(responses as Json).length).toBeGreaterThan(0);
      expect({ ...pageDocument, paths: null, components: null }).toEqual({
        ...fullDocument,
        paths: null,
        components: null,
      });
      expect(page.body.length).toBeLessThanOrEqual(full.body.length * 0.55);
    });

    it('the copy passes the recommended rules of Redocly CLI with no error', async () => {
      const work = mkdtempSync(join(resolvePath('.test-cache'), 'page-document-'));
      try {
        const page = await t.app.inject({ method: 'GET', url: '/docs/json' });
        const problems = await lintDocument(page.json(), work);
        expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    });
  });
});
