import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>;
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>;

/**
 * Fastify compiles every route's request schemas (Ajv) and response schemas (fast-json-stringify)
 * for each app it builds: about 1.5 s of CPU per test app, more than the rest of its start. The
 * compiled functions depend only on the schema, the compiler's options and the shared schemas
 * (`addSchema`), all of them the same for every test app, so the apps of a test process share them:
 * Fastify's own compilers (the copies Fastify itself requires), with what they compiled kept by the
 * schema's JSON text. The schemas are copies per app (the app bounds their integers on each route),
 * so they are equal by their text, not by identity.
 */
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
const ajvCompiler = fastifyRequire('@fastify/ajv-compiler') as () => ValidatorFactory;
const serializerSelector = fastifyRequire('@fastify/fast-json-stringify-compiler') as () => SerializerFactory;

/** The schema's JSON text, or null when JSON cannot spell it (a function, a RegExp): not shared then. */
function jsonKey(value: unknown): string | null {
  try {
    return JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'function' || v instanceof RegExp || typeof v === 'bigint') throw new Error('no JSON');
      return v;
    });
  } catch {
    return null;
  }
}

/**
 * Fastify lowercases a header schema's property names before compiling it with its own compiler,
 * and hands it over as written to one given to it. The service's header schemas are written in
 * lower case, so both compile the same; one that is not would behave differently here than in the
 * service, and is refused.
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

/**
 * Fastify's default compilers of one kind (`selector`, made anew per app as Fastify does), with what
 * an app compiled kept for the next app: a schema whose JSON text, shared schemas and options are
 * the same gets the function compiled for the first one.
 */
function shared<F extends ValidatorFactory | SerializerFactory>(selector: () => F): F {
  const compiled = new Map<string, unknown>();
  const build = (externalSchemas: unknown, options: unknown) => {
    const compiler = (selector() as (e: unknown, o: unknown) => (route: { schema?: unknown }) => unknown)(
      externalSchemas,
      options,
    );
    const setup = jsonKey([externalSchemas, options]);
    return (route: { schema?: unknown; httpPart?: string }) => {
      if (route.httpPart === 'headers') assertLowerCaseHeaders(route.schema);
      const schema = jsonKey(route.schema);
      if (setup === null || schema === null) return compiler(route);
      const key = `${setup}\n${schema}`;
      let fn = compiled.get(key);
      if (fn === undefined) {
        fn = compiler(route);
        compiled.set(key, fn);
      }
      return fn;
    };
  };
  return build as unknown as F;
}

/** The compilers every test app of this process builds its routes with (test/support/harness.ts). */
export const sharedCompilers: CompilersFactory = {
  buildValidator: shared(ajvCompiler),
  buildSerializer: shared(serializerSelector),
};
