import { type Json, isObject } from './json-object.js';

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The types a schema allows at its top (undefined: any), its alternatives and nullable included. */
function allowedTypes(schema: Json, deref: (s: Json) => Json): Set<string> | undefined {
  const s = deref(schema);
  const alternatives = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (Array.isArray(alternatives)) {
    const all = new Set<string>();
    for (const a of alternatives) {
      const types = allowedTypes(a, deref);
      if (types === undefined) return undefined;
      for (const t of types) all.add(t);
    }
    return all;
  }
  const type = s.type;
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(type as string[]);
  if ('const' in s) return new Set([typeOf(s.const), ...(typeOf(s.const) === 'integer' ? ['number'] : [])]);
  return undefined;
}

/**
 * Whether an example still has its schema's shape at the top: its type (an array where a page
 * object is asked for is not) and, for an object, the properties the schema requires. The API
 * document checks this for every example from the tests' traffic when it is built, cheaply, so
 * that an example recorded before its schema changed is not shown (the test of the reference's
 * examples checks each example against its whole schema).
 */
export function hasSchemaShape(schema: unknown, example: unknown, schemas: Record<string, unknown>): boolean {
  if (!isObject(schema)) return true;
  const deref = (s: Json): Json => {
    const ref = s.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/components/schemas/')) return s;
    const named = schemas[ref.slice('#/components/schemas/'.length)];
    return isObject(named) ? named : s;
  };
  const s = deref(schema);
  const types = allowedTypes(s, deref);
  const type = typeOf(example);
  if (types !== undefined && !types.has(type) && !(type === 'integer' && types.has('number'))) return false;
  if (type !== 'object' || !Array.isArray(s.required)) return true;
  const value = example as Json;
  return (s.required as string[]).every((name) => name in value);
}
