import { type XmlTree, isXmlDocument } from './xml.js';

/**
 * Brings a request body or query, read from JSON or XML, into the shape of the route schema
 * before validation:
 * - field names are matched case-insensitively and take the casing of the schema; unknown
 *   fields are dropped (CONTRACT section 0);
 * - `null` of a field that is not nullable counts as absent, so "required" speaks clearly;
 * - from XML: an array field's children become the array whatever their element name, a
 *   dictionary comes as `KeyValueOf...` children with Key and Value, an empty element of a
 *   number or boolean counts as absent; text stays text and the validator converts it.
 */
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
}

function types(schema: Schema): string[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function allows(schema: Schema, type: string): boolean {
  if (types(schema).includes(type)) return true;
  const alternatives = schema.anyOf ?? schema.oneOf;
  return alternatives ? alternatives.some((s) => allows(s, type)) : false;
}

/** The member of a union that describes a value that is not null. */
function concrete(schema: Schema): Schema {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (!alternatives) return schema;
  return alternatives.find((s) => !types(s).includes('null')) ?? schema;
}

const fieldMaps = new WeakMap<Record<string, Schema>, Map<string, string>>();

function fieldMap(properties: Record<string, Schema>): Map<string, string> {
  let map = fieldMaps.get(properties);
  if (!map) {
    map = new Map(Object.keys(properties).map((k) => [k.toLowerCase(), k]));
    fieldMaps.set(properties, map);
  }
  return map;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function childValues(v: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  for (const child of Object.values(v)) {
    if (Array.isArray(child)) out.push(...child);
    else out.push(child);
  }
  return out;
}

function normaliseDictionary(value: unknown, valueSchema: Schema, xml: boolean): unknown {
  // .NET serialisers write a dictionary as a list of {Key, Value} pairs.
  let pairs: unknown[] | null = null;
  if (Array.isArray(value)) pairs = value;
  else if (xml && isRecord(value)) pairs = childValues(value);
  else if (xml && value === '') return {};
  if (pairs === null) {
    if (!isRecord(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normaliseValue(v, valueSchema, xml);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    if (!isRecord(pair)) return value;
    let key: unknown;
    let val: unknown;
    for (const [k, v] of Object.entries(pair)) {
      if (k.toLowerCase() === 'key') key = v;
      else if (k.toLowerCase() === 'value') val = v;
    }
    if (typeof key !== 'string') return value;
    out[key] = normaliseValue(val ?? null, valueSchema, xml);
  }
  return out;
}

export function normaliseValue(value: unknown, schema: Schema | undefined, xml: boolean): unknown {
  if (schema === undefined) return value;
  if (value === null) return allows(schema, 'null') ? null : undefined;
  const s = concrete(schema);
  const t = types(s);
  if (t.includes('array')) {
    let items: unknown[] | null = null;
    if (Array.isArray(value)) items = value;
    else if (xml && value === '') items = [];
    else if (xml && isRecord(value)) items = childValues(value);
    else if (xml && typeof value === 'string') items = [value];
    if (items === null) return value;
    return items.map((item) => normaliseValue(item, s.items, xml));
  }
  if (t.includes('object')) {
    if (xml && value === '') value = {};
    if (!isRecord(value)) return value;
    if (!s.properties) {
      const valueSchema =
        typeof s.additionalProperties === 'object'
          ? s.additionalProperties
          : s.patternProperties
            ? Object.values(s.patternProperties)[0]
            : undefined;
      return valueSchema ? normaliseDictionary(value, valueSchema, xml) : value;
    }
    const map = fieldMap(s.properties);
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const canonical = map.get(key.toLowerCase());
      if (canonical === undefined) continue;
      const propSchema = s.properties[canonical];
      const normalised = normaliseValue(child, propSchema, xml);
      if (normalised !== undefined) out[canonical] = normalised;
    }
    return out;
  }
  if (xml && value === '' && !t.includes('string')) return undefined;
  if (xml && isRecord(value) && t.includes('string')) return value;
  return value;
}

/** Normalises a parsed body (JSON value or XML document) against the route's body schema. */
export function normaliseBody(body: unknown, schema: Schema | undefined): unknown {
  if (isXmlDocument(body)) return normaliseValue(body.value as XmlTree, schema, true) ?? {};
  return normaliseValue(body, schema, false);
}

/** Query parameters: names matched case-insensitively, values left for the validator. */
export function normaliseQuery(
  query: Record<string, unknown>,
  schema: Schema | undefined,
): Record<string, unknown> {
  if (!schema?.properties) return query;
  const map = fieldMap(schema.properties);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    out[map.get(key.toLowerCase()) ?? key] = value;
  }
  return out;
}
