import { type Static, type TSchema, type TUnsafe, Type } from 'typebox';

/**
 * A schema that also accepts null, written as a type list (`["integer", "null"]`) rather than
 * anyOf: with type coercion on, anyOf would turn null into "" or 0 (or 0 into null), while a
 * type list leaves a value alone when it already has one of the types.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const raw = schema as unknown as { type?: unknown };
  if (typeof raw.type !== 'string') throw new Error('Nullable needs a schema with one type');
  return Type.Unsafe<Static<T> | null>({ ...(schema as object), type: [raw.type, 'null'] });
}
