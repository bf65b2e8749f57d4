import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startApp } from '../support/harness.js';

interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/**
 * "One cursor paging style (`limit`, `cursor`, `hasMore` or the like) on every list of every API"
 * (docs/decisions.md, "Paging"): no operation of the operator, checkout or portal APIs answers a bare
 * array. The POS interface v3 keeps the shapes its document gives (its own `page`/`pageSize`).
 */
describe('every list of every API answers one page shape', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite');
  });
  afterAll(async () => {
    await t.close();
  });

  it('no operation outside the POS interface v3 answers a bare array; every paged list takes limit and cursor', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation & { parameters?: { name: string; in: string }[] }>>;
      components: { schemas: Record<string, Schema> };
    };
    const deref = (s: Schema | undefined): Schema | undefined =>
      s?.$ref ? doc.components.schemas[s.$ref.split('/').pop() ?? ''] : s;
    const bare: string[] = [];
    const unpaged: string[] = [];
    let lists = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.startsWith('/api/pos/v3/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        for (const media of Object.values(op.responses?.['200']?.content ?? {})) {
          const schema = deref(media.schema);
          if (schema?.type === 'array') bare.push(`${method.toUpperCase()} ${path}`);
          const props = schema?.properties ?? {};
          if ('data' in props && 'nextCursor' in props) {
            lists += 1;
            const names = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
            if (!names.includes('limit') || !names.includes('cursor')) unpaged.push(`${method} ${path}`);
          }
        }
      }
    }
    expect(bare).toEqual([]);
    expect(unpaged).toEqual([]);
    expect(lists).toBeGreaterThan(15);
  });
});
