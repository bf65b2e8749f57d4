import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError } from '../shared/errors.js';
import { type ParseLimits, REQUEST_LIMITS, listTooLong } from './parse-limits.js';
import { NUL_REFUSED } from './request-guards.js';

/**
 * XML on the POS wire mirrors JSON one to one (docs/decisions.md, "XML shape"). Reading gives a plain
 * tree of objects, arrays (repeated children) and strings; the route schema then decides what
 * is a number, a boolean or an array (see normalise.ts).
 */

/** Elements the document being read may still add; set by parseXml (parsing is synchronous). */
let elementsLeft = 0;
let elementLimit = 0;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  // Values stay text: "0042" and long card numbers must survive; the schema converts.
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  // Numeric character references (&#233;, &#xE9;) are standard XML; the reader decodes them with
  // the HTML named ones, a harmless superset of the five XML names.
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  textNodeName: '#text',
  maxNestedTags: 64,
  // Called for every element as it is read: the count is capped while the tree is built, not
  // after (docs/security.md, "Authentication before the body and parse limits").
  jPath: false,
  updateTag: (tagName) => {
    elementsLeft -= 1;
    if (elementsLeft < 0) {
      throw new AppError('listTooLong', `The XML document holds more than ${elementLimit} elements.`);
    }
    return tagName;
  },
});

/** DOCTYPE and entity declarations are refused: no entity expansion, no external entities. */
const FORBIDDEN = /<!(DOCTYPE|ENTITY)/i;

export type XmlTree = string | null | XmlTree[] | { [key: string]: XmlTree };

/** Marks a value read from XML, so that normalisation knows its scalars are text. */
export const FROM_XML: unique symbol = Symbol('punchcard.fromXml');

export interface XmlDocument {
  readonly [FROM_XML]: true;
  readonly root: string;
  readonly value: XmlTree;
}

export function isXmlDocument(v: unknown): v is XmlDocument {
  return typeof v === 'object' && v !== null && FROM_XML in v;
}

/** Percent-decodes a text value; text that is not valid percent-encoding is kept as it is. */
function decodeText(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A text value as the service reads it: percent-decoded, and never holding U+0000. */
function textValue(raw: string): string {
  const text = decodeText(raw);
  if (text.includes('\u0000')) throw new AppError('invalidBody', NUL_REFUSED);
  return text;
}

function convert(node: unknown, maxListItems: number): XmlTree {
  if (node === null || node === undefined) return null;
  if (typeof node === 'string') return textValue(node);
  if (typeof node === 'number' || typeof node === 'boolean') return String(node);
  if (Array.isArray(node)) {
    if (node.length > maxListItems) throw listTooLong(maxListItems);
    return node.map((child) => convert(child, maxListItems));
  }
  if (typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (record['@_nil'] === 'true') return null;
    const out: { [key: string]: XmlTree } = {};
    let children = 0;
    for (const [key, value] of Object.entries(record)) {
      if (key.startsWith('@_') || key === '#text') continue;
      out[key] = convert(value, maxListItems);
      children++;
    }
    if (children === 0) {
      const text = record['#text'];
      return text === undefined ? '' : textValue(String(text));
    }
    return out;
  }
  return null;
}

export function parseXml(text: string, limits: ParseLimits = REQUEST_LIMITS): XmlDocument {
  if (FORBIDDEN.test(text)) {
    throw new AppError('invalidBody', 'DOCTYPE and entity declarations are not accepted.');
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new AppError('invalidBody', `XML is not well-formed: ${valid.err.msg} (line ${valid.err.line}).`);
  }
  let parsed: Record<string, unknown>;
  elementsLeft = limits.maxXmlElements;
  elementLimit = limits.maxXmlElements;
  try {
    parsed = parser.parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof AppError) throw err;
    // Well-formed but beyond what the reader takes (nesting deeper than 64 elements).
    throw new AppError(
      'invalidBody',
      `XML is not accepted: ${err instanceof Error ? err.message : String(err)}.`,
    );
  }
  const roots = Object.keys(parsed).filter((k) => !k.startsWith('?'));
  const rootName = roots[0];
  if (roots.length !== 1 || rootName === undefined) {
    throw new AppError('invalidBody', 'XML must have exactly one root element.');
  }
  return { [FROM_XML]: true, root: rootName, value: convert(parsed[rootName], limits.maxListItems) };
}

// ---------------------------------------------------------------------------------------------
// Writing

/** The parts of a JSON schema that writing XML looks at. */
export interface XmlSchema {
  type?: string | string[];
  properties?: Record<string, XmlSchema>;
  items?: XmlSchema;
  xml?: { name?: string };
  anyOf?: XmlSchema[];
}

// Characters XML 1.0 does not allow at all are URL-escaped, as the documents ask of clients.
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(NOT_XML_CHAR, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

function singular(name: string): string {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('ses')) return name.slice(0, -2);
  if (name.endsWith('s') && !name.endsWith('ss')) return name.slice(0, -1);
  return `${name}Item`;
}

function unwrap(schema: XmlSchema | undefined): XmlSchema | undefined {
  if (schema?.anyOf) return schema.anyOf.find((s) => s.type !== 'null') ?? schema;
  return schema;
}

function write(name: string, value: unknown, schema: XmlSchema | undefined, out: string[]): void {
  if (value === undefined || value === null) return;
  const s = unwrap(schema);
  if (Array.isArray(value)) {
    const itemSchema = unwrap(s?.items);
    const itemName = itemSchema?.xml?.name ?? singular(name);
    out.push(`<${name}>`);
    for (const item of value) write(itemName, item, itemSchema, out);
    out.push(`</${name}>`);
    return;
  }
  if (value instanceof Date) {
    out.push(`<${name}>${value.toISOString()}</${name}>`);
    return;
  }
  if (typeof value === 'object') {
    out.push(`<${name}>`);
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      write(key, child, s?.properties?.[key], out);
    }
    out.push(`</${name}>`);
    return;
  }
  out.push(`<${name}>${escapeXml(String(value))}</${name}>`);
}

/** Writes a response document; the root and array item names come from the schema's `xml`. */
export function toXml(value: unknown, schema: XmlSchema | undefined, fallbackRoot = 'Response'): string {
  const root = unwrap(schema)?.xml?.name ?? fallbackRoot;
  const out: string[] = ['<?xml version="1.0" encoding="utf-8"?>'];
  if (value === undefined || value === null) {
    out.push(`<${root}/>`);
  } else {
    write(root, value, schema, out);
  }
  return out.join('');
}
