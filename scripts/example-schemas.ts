import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Whether an example still fits its schema, for the examples of the API document (docs/decisions.md,
 * "Examples and webhooks in the reference"): the examples are the tests' traffic of the day they
 * were taken, and a schema that changed since (a list that became a page) must not be shown with
 * an example of its old shape. The schemas are read from the document itself (its
 * `#/components/schemas`), each compiled once when an example asks for it.
 */
export class ExampleSchemas {
  readonly #ajv: Ajv2020;
  readonly #document: string;

  constructor(doc: Record<string, unknown>, name = 'openapi.json') {
    this.#ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    (addFormats as unknown as (a: Ajv2020) => void)(this.#ajv);
    // Only the named schemas: the references of the operations point there.
    this.#ajv.addSchema({ components: doc.components ?? {} }, name);
    this.#document = name;
  }

  /** True when `example` is valid against `schema` (a schema of the document, refs included). */
  fits(schema: unknown, example: unknown): boolean {
    if (typeof schema !== 'object' || schema === null) return true;
    const local = JSON.stringify(schema).replaceAll('"#/components/', `"${this.#document}#/components/`);
    try {
      return this.#ajv.validate(JSON.parse(local) as object, example) === true;
    } catch {
      // A schema that does not compile proves nothing: the example is not shown (and is missed).
      return false;
    }
  }
}

/** Values no integrator would send or see: limits probed by tests and the words of generated samples. */
const PLACEHOLDER_NUMBERS = new Set([Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]);
const PLACEHOLDER_TEXT = /^string$|additionalProp|9007199254740991/;

/** Where a value holds a placeholder (JSON pointers); empty when it is realistic. */
export function placeholders(value: unknown, at = ''): string[] {
  if (typeof value === 'number') return PLACEHOLDER_NUMBERS.has(value) ? [at] : [];
  if (typeof value === 'string') return PLACEHOLDER_TEXT.test(value) ? [at] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholders(v, `${at}/${i}`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => [
      ...(PLACEHOLDER_TEXT.test(k) ? [`${at}/${k}`] : []),
      ...placeholders(v, `${at}/${k}`),
    ]);
  }
  return [];
}
