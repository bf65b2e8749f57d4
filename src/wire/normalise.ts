import { AppError } from '../shared/errors.js';
import { type XmlTree, isXmlDocument } from './xml.js';
import { isObject } from './json-object.js';

/**
 * Brings a request body or query, read from JSON or XML, into the shape of the route schema
 * before validation:
 * - field names are matched case-insensitively and take the casing of the schema; unknown
 *   fields are dropped (docs/decisions.md, "Field names");
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

/** What normalising needs to know of a schema, worked out once per schema. */
interface Plan {
  readonly nullable: boolean;
  readonly kind: 'array' | 'object' | 'dictionary' | 'plain' | 'scalar';
  readonly isString: boolean;
  /** A number or integer that cannot also be a string: text in its place must be a decimal. */
  readonly isNumeric: boolean;
  readonly concrete: Schema;
  readonly items: Schema | undefined;
  readonly properties: Record<string, Schema> | undefined;
  /** Lower-case field name to the schema's field name. */
  readonly fields: Map<string, string> | undefined;
  /** The schema's field names as they are spelt. */
  readonly names: Set<string>;
  readonly valueSchema: Schema | undefined;
  /**
   * A field's name in the schema and its plan, by the name as sent: filled on first sight of each
   * spelling, so that a body's field costs one lookup instead of a lower-casing and three lookups.
   * Unknown names are kept as such (`null`) up to a bound, since a body may send any.
   */
  readonly sent: Map<string, Field | null>;
  /** The plan of the items of an array, once asked for. */
  itemPlan: Plan | undefined;
}

interface Field {
  readonly name: string;
  readonly schema: Schema;
  plan: Plan | undefined;
}

/** How many spellings of field names a plan keeps, known or not (a hostile body sends many). */
const SPELLINGS_KEPT = 256;

const plans = new WeakMap<Schema, Plan>();

function planOf(schema: Schema): Plan {
  let plan = plans.get(schema);
  if (plan) return plan;
  const c = concrete(schema);
  const t = types(c);
  const valueSchema =
    typeof c.additionalProperties === 'object'
      ? c.additionalProperties
      : c.patternProperties
        ? Object.values(c.patternProperties)[0]
        : undefined;
  let kind: Plan['kind'] = 'scalar';
  if (t.includes('array')) kind = 'array';
  else if (t.includes('object')) kind = c.properties ? 'object' : valueSchema ? 'dictionary' : 'plain';
  plan = {
    nullable: allows(schema, 'null'),
    kind,
    isString: t.includes('string'),
    isNumeric: (t.includes('number') || t.includes('integer')) && !allows(schema, 'string'),
    concrete: c,
    items: c.items,
    properties: c.properties,
    fields: c.properties ? new Map(Object.keys(c.properties).map((k) => [k.toLowerCase(), k])) : undefined,
    names: new Set(c.properties ? Object.keys(c.properties) : []),
    valueSchema,
    sent: new Map(),
    itemPlan: undefined,
  };
  plans.set(schema, plan);
  return plan;
}

function childValues(v: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  for (const child of Object.values(v)) {
    // One by one: spreading a list of 200,000 items as arguments overflows the stack.
    if (Array.isArray(child)) for (const item of child) out.push(item);
    else out.push(child);
  }
  return out;
}

function normaliseDictionary(value: unknown, valueSchema: Schema, xml: boolean): unknown {
  // .NET serialisers write a dictionary as a list of {Key, Value} pairs.
  let pairs: unknown[] | null = null;
  if (Array.isArray(value)) pairs = value;
  else if (xml && isObject(value)) pairs = childValues(value);
  else if (xml && value === '') return {};
  if (pairs === null) {
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normaliseValue(v, valueSchema, xml);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    if (!isObject(pair)) return value;
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

/** A new object with the first `count` fields of `value` (those found already in shape). */
function copyFields(
  value: Record<string, unknown>,
  keys: readonly string[],
  count: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let k = 0; k < count; k++) {
    const key = keys[k] as string;
    out[key] = value[key];
  }
  return out;
}

/**
 * Text where a number belongs (a query or path value, XML, a JSON string) must be a plain decimal:
 * the validator's type coercion would read "0x10" as 16, " 16 " as 16, "1e3" as 1000 and
 * "Infinity" or "1e400" as an infinite number that passes integer checks and then fails in the
 * database. Twenty digits either side of the point are more than any amount or id has.
 */
const DECIMAL_TEXT = /^-?[0-9]{1,20}(\.[0-9]{1,20})?$/;

function isDecimalFor(value: string, plan: Plan): boolean {
  return !plan.isNumeric || value === '' || DECIMAL_TEXT.test(value);
}

function checkNumericText(value: string, plan: Plan): void {
  if (plan.isNumeric && value !== '' && !DECIMAL_TEXT.test(value)) {
    throw new AppError('invalidBody', `A number must be written as a decimal, not "${value.slice(0, 40)}".`);
  }
}

/** Checks the text values of a path or query against the numbers of their schema. */
export function checkNumericTexts(values: unknown, schema: Schema | undefined): void {
  if (!schema || typeof values !== 'object' || values === null) return;
  const plan = planOf(schema);
  if (!plan.properties) return;
  for (const [key, value] of Object.entries(values)) {
    const field = plan.properties[key];
    if (field === undefined) continue;
    const fieldPlan = planOf(field);
    if (typeof value === 'string') checkNumericText(value, fieldPlan);
    else if (Array.isArray(value)) {
      for (const v of value) if (typeof v === 'string') checkNumericText(v, fieldPlan);
    }
  }
}

/** The field a name as sent stands for (matched case-insensitively), or null for none. */
function fieldOf(plan: Plan, key: string): Field | null {
  const known = plan.sent.get(key);
  if (known !== undefined) return known;
  const properties = plan.properties;
  // The usual case, a field spelt as in the documents, needs no lower-casing.
  const name = plan.names.has(key) ? key : plan.fields?.get(key.toLowerCase());
  const field = name === undefined || properties === undefined ? null : fieldNamed(plan, properties, name);
  if (plan.sent.size < SPELLINGS_KEPT) plan.sent.set(key, field);
  return field;
}

function fieldNamed(plan: Plan, properties: Record<string, Schema>, name: string): Field | null {
  const schema = properties[name];
  if (schema === undefined) return null;
  // Every spelling of one field shares its entry.
  const spelt = plan.sent.get(name);
  return spelt ?? { name, schema, plan: undefined };
}

export function normaliseValue(value: unknown, schema: Schema | undefined, xml: boolean): unknown {
  return schema === undefined ? value : normalisePlanned(value, planOf(schema), xml);
}

function normalisePlanned(value: unknown, plan: Plan, xml: boolean): unknown {
  // Text that is no plain decimal where a number belongs is left for the validator as a value of
  // no number type, so that it is listed with the body's other problems under its own pointer.
  if (typeof value === 'string' && !isDecimalFor(value, plan)) return { notADecimal: value };
  // A JSON number, string or boolean is left for the validator whatever the schema says.
  if (!xml && typeof value !== 'object') return value;
  if (value === null) return plan.nullable ? null : undefined;
  switch (plan.kind) {
    case 'array': {
      let items: unknown[] | null = null;
      if (Array.isArray(value)) items = value;
      else if (xml && value === '') items = [];
      else if (xml && isObject(value)) items = childValues(value);
      else if (xml && typeof value === 'string') items = [value];
      if (items === null) return value;
      // Copy on write: an array whose items are already in shape is returned as it is.
      if (plan.items === undefined) return items;
      const itemPlan = (plan.itemPlan ??= planOf(plan.items));
      let out: unknown[] | null = null;
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        const normalised = normalisePlanned(item, itemPlan, xml);
        if (normalised === item) continue;
        out ??= items.slice();
        out[i] = normalised;
      }
      return out ?? items;
    }
    case 'object': {
      if (xml && value === '') value = {};
      if (!isObject(value) || !plan.properties || !plan.fields) return value;
      // Copy on write: an object whose fields are all spelt as in the documents and already in
      // shape (the usual JSON body) is returned as it is, without allocating.
      let out: Record<string, unknown> | null = null;
      let done = 0;
      const keys = Object.keys(value);
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k] as string;
        const child = value[key];
        const field = fieldOf(plan, key);
        const canonical = field?.name;
        const normalised =
          field === null ? undefined : normalisePlanned(child, (field.plan ??= planOf(field.schema)), xml);
        if (out === null) {
          if (canonical === key && normalised === child) {
            done += 1;
            continue;
          }
          out = copyFields(value, keys, done);
        }
        if (canonical !== undefined && normalised !== undefined) out[canonical] = normalised;
        done += 1;
      }
      return out ?? value;
    }
    case 'dictionary':
      if (xml && value === '') return {};
      return plan.valueSchema ? normaliseDictionary(value, plan.valueSchema, xml) : value;
    case 'plain':
      return value;
    default:
      if (xml && value === '' && !plan.isString) return undefined;
      return value;
  }
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
  if (!schema) return query;
  const map = planOf(schema).fields;
  if (!map) return query;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    out[map.get(key.toLowerCase()) ?? key] = value;
  }
  checkNumericTexts(out, schema);
  return out;
}
