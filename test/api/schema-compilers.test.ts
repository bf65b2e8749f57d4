import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/shared/clock.js';
import { loadPrecompiledSchemas } from '../../src/wire/precompiled-schemas.js';
import {
  type RouteSchema,
  type SchemaKind,
  schemaCompilers,
  schemaDigest,
} from '../../src/wire/schema-compilers.js';
import { openTestDatabase } from '../support/harness.js';
import { DIST_PRECOMPILED } from '../support/schema-compilers.js';

/** A schema function the service compiled at a start, with what it was compiled from. */
interface Compiled {
  kind: SchemaKind;
  digest: string;
  fn: unknown;
  route: RouteSchema;
}

type Schema = Record<string, unknown>;

/**
 * A value of the schema's shape: every property (required or not) with a value of its type, as a
 * request or an answer of that route could carry it. `$ref` and what JSON cannot say give `{}`.
 */
function sample(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 8) return {};
  const s = schema as Schema;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[s.enum.length - 1];
  if ('default' in s) return s.default;
  for (const union of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = s[union];
    if (Array.isArray(options) && options.length > 0) return sample(options[options.length - 1], depth + 1);
  }
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries((s.properties as Schema | undefined) ?? {})) {
        out[name] = sample(property, depth + 1);
      }
      return out;
    }
    case 'array':
      return [sample(s.items, depth + 1)];
    case 'string':
      return s.format === 'date-time' ? '2026-03-02T11:30:00.000Z' : 'text';
    case 'integer':
      return typeof s.minimum === 'number' ? s.minimum : 7;
    case 'number':
      return 2.5;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

/** The same value with each of its properties, in turn, of another type: what a wrong request carries. */
function wrongValues(value: unknown): unknown[] {
  const out: unknown[] = [undefined, null, 'text', 12, [], {}];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const name of Object.keys(value)) {
      for (const wrong of ['', '12', -1, 1.5, [1], { a: 1 }, null, true])
        out.push({ ...value, [name]: wrong });
      const without = { ...(value as Record<string, unknown>) };
      delete without[name];
      out.push(without);
    }
  }
  return out;
}

/** What a validator says of a value: its verdict, its errors and the value as it left it (coerced, defaults). */
function validated(fn: unknown, value: unknown): unknown {
  const validate = fn as ((data: unknown) => boolean) & { errors?: unknown };
  const data = value === undefined ? undefined : structuredClone(value);
  const verdict = validate(data);
  return { verdict, errors: validate.errors ?? null, data };
}

/** What a serializer makes of a value: its text, or the message it refuses it with. */
function serialized(fn: unknown, value: unknown): string {
  try {
    return (fn as (data: unknown) => string)(structuredClone(value));
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
}

describe("the service's schema functions: compiled by the build, taken at a start", () => {
  let drop: (() => Promise<void>) | undefined;
  const compiled: Compiled[] = [];

  beforeAll(async () => {
    const opened = await openTestDatabase('pglite');
    drop = opened.drop;
    const database = opened.database;
    const config = loadConfig({ ADMIN_TOKEN: 'build-only-token-0123456789', OUTBOX_DISABLED: 'true' });
    // No precompiled file: every function compiled here, as a start without the build does.
    const compilersFactory = schemaCompilers({
      onCompiled: (kind, digest, made, route) => compiled.push({ kind, digest, fn: made.fn, route }),
    });
    const app = await buildApp(
      { config, database, clock: systemClock, adminTokenHash: 'none' },
      { logger: false, compilersFactory },
    );
    await app.ready();
    await app.close();
  });
  afterAll(async () => {
    await drop?.();
  });

  it('the build made the file the compiled service starts with', () => {
    expect(existsSync(DIST_PRECOMPILED)).toBe(true);
  });

  it('holds a function for every schema a start compiles, so a start compiles none', () => {
    const precompiled = loadPrecompiledSchemas(DIST_PRECOMPILED);
    expect(compiled.length).toBeGreaterThan(200);
    const missing = compiled.filter((c) => precompiled?.get(c.digest) === undefined);
    expect(
      missing.map((c) => `${c.kind} ${c.route.method} ${c.route.url} ${c.route.httpPart ?? ''}`),
    ).toEqual([]);
  });

  /**
   * Each function of a kind from the build beside the one compiled here, on the values `values`
   * makes of a right value of its schema: what differs, and how many values were compared.
   */
  function compareWithBuild(
    kind: SchemaKind,
    values: (right: unknown) => unknown[],
    outcome: (fn: unknown, value: unknown) => string,
  ): { compared: number; differing: string[] } {
    const precompiled = loadPrecompiledSchemas(DIST_PRECOMPILED);
    let compared = 0;
    const differing: string[] = [];
    for (const c of compiled.filter((x) => x.kind === kind)) {
      const fromBuild = precompiled?.get(c.digest);
      for (const value of values(sample(c.route.schema))) {
        if (outcome(fromBuild, value) !== outcome(c.fn, value)) {
          differing.push(
            `${c.route.method} ${c.route.url} ${c.route.httpPart ?? ''}: ${JSON.stringify(value)}`,
          );
        }
        compared++;
      }
    }
    return { compared, differing };
  }

  it('each precompiled validator says what the compiled one says, of right and wrong values alike', () => {
    const { compared, differing } = compareWithBuild(
      'validator',
      (right) => [right, ...wrongValues(right)],
      (fn, value) => JSON.stringify(validated(fn, value)),
    );
    expect(differing).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
  });

  it('each precompiled serializer writes what the compiled one writes', () => {
    const { compared, differing } = compareWithBuild(
      'serializer',
      (right) => [right, {}, ...wrongValues(right).slice(6, 10)],
      serialized,
    );
    expect(differing).toEqual([]);
    expect(compared).toBeGreaterThan(500);
  });

  it('a schema that differs from what the build saw is compiled, never answered by a stale function', async () => {
    const stale = (() => true) as unknown;
    const schema = { type: 'object', properties: { amount: { type: 'integer' } }, required: ['amount'] };
    const options = { customOptions: {} };
    const setup = JSON.stringify([{}, options]);
    // The store knows a function for the schema as it was, not as it is now.
    const before = schemaDigest('validator', setup, JSON.stringify({ ...schema, required: [] }));
    const seen: string[] = [];
    const factory = schemaCompilers({
      precompiled: { get: (digest) => (digest === before ? stale : undefined) },
      onCompiled: (_kind, digest) => seen.push(digest),
    });
    const compile = (
      factory.buildValidator as unknown as (e: unknown, o: unknown) => (r: RouteSchema) => unknown
    )({}, options);
    const validate = compile({ schema, httpPart: 'body', method: 'POST', url: '/x' }) as (
      d: unknown,
    ) => boolean;
    expect(validate).not.toBe(stale);
    expect(validate({})).toBe(false);
    expect(seen).toEqual([schemaDigest('validator', setup, JSON.stringify(schema))]);
    // The schema as the build saw it is taken from the store.
    expect(compile({ schema: { ...schema, required: [] }, httpPart: 'body' })).toBe(stale);
  });
});
