import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's schema compilers: Ajv for what a request carries, fast-json-stringify for answers.
 * Compiling every route's schemas took a third of a start's CPU (docs/performance.md, "Start-up
 * time and the embedded database's memory"), so the service takes them from three places, in this
 * order:
 *
 * 1. what this process compiled already for the same schema (a second app in one process, the
 *    tests' apps);
 * 2. the build's precompiled functions (`dist/compiled-schemas.cjs`, written by
 *    src/compile-schemas.ts), found by a digest of everything the function is made from: the
 *    schema's JSON text, the shared schemas (`addSchema`), the compiler's options and the versions of
 *    Ajv and fast-json-stringify. A schema the build did not see, or saw otherwise, has another
 *    digest and is compiled here; a stale function can never be used;
 * 3. Fastify's own compilers, the copies Fastify itself requires.
 *
 * (docs/decisions.md, "Schema compilers").
 */
export type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>;
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>;
/** One route part as Fastify hands it to a compiler. */
export interface RouteSchema {
  schema?: unknown;
  httpPart?: string;
  method?: string;
  url?: string;
}
/** A compiler made for one set of shared schemas and options: a route part's schema to its function. */
type Compile = (route: RouteSchema) => unknown;
type Build = (externalSchemas: unknown, options: unknown) => Compile;

/** The kinds of compiled function: request validators and answer serializers. */
export type SchemaKind = 'validator' | 'serializer';

/** Compiled functions by digest (src/wire/precompiled-schemas.ts). */
export interface PrecompiledSchemas {
  get(digest: string): unknown;
}

/** What a compiler reports of each function it made (the build writes them down). */
export type CompiledListener = (
  kind: SchemaKind,
  digest: string,
  made: MadeFunction,
  route: RouteSchema,
) => void;
export interface MadeFunction {
  /** The function as Fastify uses it. */
  fn: unknown;
  /** Its standalone source (a CommonJS module body), when the compiler was asked for one. */
  source: string | null;
}

const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
const ajvCompilerRequire = createRequire(fastifyRequire.resolve('@fastify/ajv-compiler'));
const serializerRequire = createRequire(fastifyRequire.resolve('@fastify/fast-json-stringify-compiler'));
const ajvSelector = fastifyRequire('@fastify/ajv-compiler') as (() => Build) & { AjvReference: symbol };
const serializerSelector = fastifyRequire('@fastify/fast-json-stringify-compiler') as () => Build;

/** The compilers' own versions: an upgrade without a new build finds no precompiled function. */
const COMPILER_VERSIONS = [
  (ajvCompilerRequire('ajv/package.json') as { version: string }).version,
  (serializerRequire('fast-json-stringify/package.json') as { version: string }).version,
].join(' ');

/** The JSON text of a value, or null when JSON cannot spell it (a function, a RegExp): not shared then. */
export function jsonKey(value: unknown): string | null {
  try {
    return JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'function' || v instanceof RegExp || typeof v === 'bigint') throw new Error('no JSON');
      return v;
    });
  } catch {
    return null;
  }
}

/** The digest a compiled function is found by. */
export function schemaDigest(kind: SchemaKind, setup: string, schema: string): string {
  return createHash('sha256').update(`${kind}\n${COMPILER_VERSIONS}\n${setup}\n${schema}`).digest('hex');
}

/**
 * Fastify lowercases a header schema's property names before compiling it with its own compiler,
 * and hands it over as written to one given to it. The service's header schemas are written in
 * lower case, so both compile the same; one that is not would behave differently here than with
 * Fastify's own, and is refused when its route is registered.
 */
function assertLowerCaseHeaders(schema: unknown): void {
  if (typeof schema !== 'object' || schema === null) return;
  const { properties, required } = schema as { properties?: object; required?: unknown };
  const names = [...Object.keys(properties ?? {}), ...(Array.isArray(required) ? required.map(String) : [])];
  const upper = names.find((name) => name !== name.toLowerCase());
  if (upper !== undefined) {
    throw new Error(
      `header schema property "${upper}": write header names in lower case (Fastify matches them so)`,
    );
  }
}

/** Makes a function and, when asked, its standalone source. */
type Maker = (
  externalSchemas: unknown,
  options: unknown,
  withSource: boolean,
) => (route: RouteSchema) => MadeFunction;

const makeValidator: Maker = (externalSchemas, options, withSource) => {
  if (!withSource) {
    const compile = ajvSelector()(externalSchemas, options);
    return (route) => ({ fn: compile(route), source: null });
  }
  // Ajv keeps the source of what it compiles only when asked to (`code.source`).
  const opts = options as { customOptions?: Record<string, unknown> };
  const compile = ajvSelector()(externalSchemas, {
    ...opts,
    customOptions: { ...opts.customOptions, code: { source: true } },
  });
  const { ajv } = (compile as unknown as Record<symbol, { ajv: unknown }>)[ajvSelector.AjvReference] ?? {};
  const standaloneCode = (
    ajvCompilerRequire('ajv/dist/standalone') as { default: (a: unknown, f: unknown) => string }
  ).default;
  return (route) => {
    const fn = compile(route);
    return { fn, source: standaloneCode(ajv, fn) };
  };
};

const makeSerializer: Maker = (externalSchemas, options, withSource) => {
  const compile = serializerSelector()(externalSchemas, options);
  if (!withSource) return (route) => ({ fn: compile(route), source: null });
  const standalone = serializerSelector()(externalSchemas, { ...(options as object), mode: 'standalone' });
  return (route) => ({ fn: compile(route), source: standalone(route) as string });
};

interface SchemaCompilersOptions {
  /** The build's functions, looked up before compiling. */
  precompiled?: PrecompiledSchemas | null;
  /** Sees every function compiled here (not those taken from the build or this process). */
  onCompiled?: CompiledListener;
  /** Asks the compilers for each function's standalone source too (the build). */
  withSource?: boolean;
}

function shared(kind: SchemaKind, make: Maker, options: SchemaCompilersOptions): Build {
  const compiled = new Map<string, unknown>();
  return (externalSchemas, compilerOptions) => {
    const setup = jsonKey([externalSchemas, compilerOptions]);
    let compiler: ((route: RouteSchema) => MadeFunction) | null = null;
    const compileHere = (route: RouteSchema) => {
      compiler ??= make(externalSchemas, compilerOptions, options.withSource === true);
      return compiler(route);
    };
    return (route) => {
      if (kind === 'validator' && route.httpPart === 'headers') assertLowerCaseHeaders(route.schema);
      const schema = jsonKey(route.schema);
      if (setup === null || schema === null) return compileHere(route).fn;
      const key = `${setup}\n${schema}`;
      let fn = compiled.get(key);
      if (fn !== undefined) return fn;
      const digest = schemaDigest(kind, setup, schema);
      fn = options.precompiled?.get(digest);
      if (fn === undefined) {
        const made = compileHere(route);
        options.onCompiled?.(kind, digest, made, route);
        fn = made.fn;
      }
      compiled.set(key, fn);
      return fn;
    };
  };
}

/** The compilers an app builds its routes with; share one between apps to share what they compile. */
export function schemaCompilers(options: SchemaCompilersOptions = {}): CompilersFactory {
  return {
    buildValidator: shared('validator', makeValidator, options) as unknown as ValidatorFactory,
    buildSerializer: shared('serializer', makeSerializer, options) as unknown as SerializerFactory,
  };
}
