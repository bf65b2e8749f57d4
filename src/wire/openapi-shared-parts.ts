/**
 * The reference page's copy of the OpenAPI document, with its repeated parts written once.
 *
 * Every operation lists its answers, errors included, each with the same headers written out in
 * full: 1.2 MB in all. Swagger UI reads an OpenAPI 3.1 document through ApiDOM, whose time follows
 * the document's size, for the first render and again for each operation opened. The page's copy
 * names each distinct answer header once under `components/headers`, and each answer that two or
 * more operations give alike once under `components/responses`; the operations refer to them. It
 * says the same as `/openapi.json`, which keeps everything written out for client generators
 * (docs/decisions.md, "The API reference page's document").
 */

import { type Json, isObject } from './json-object.js';
import { componentName } from './openapi.js';

type Responses = Record<string, unknown>;

/** A component's name: the allowed characters of OpenAPI's component keys, with a number if taken. */
function uniqueName(base: string, taken: Set<string>): string {
  const clean = componentName(base);
  let name = clean;
  for (let n = 2; taken.has(name); n++) name = `${clean}-${n}`;
  taken.add(name);
  return name;
}

/** Hands out one reference per distinct value (by its JSON text), naming it after `base`. */
class Registry {
  readonly parts: Record<string, unknown>;
  private readonly byText = new Map<string, string>();
  private readonly names: Set<string>;

  /** `existing`: the document's own components of this kind, kept under their names. */
  constructor(
    private readonly kind: 'headers' | 'responses',
    existing: unknown,
  ) {
    this.parts = isObject(existing) ? { ...existing } : {};
    this.names = new Set(Object.keys(this.parts));
  }

  refer(base: string, value: unknown): { $ref: string } {
    const text = JSON.stringify(value);
    let name = this.byText.get(text);
    if (name === undefined) {
      name = uniqueName(base, this.names);
      this.byText.set(text, name);
      this.parts[name] = value;
    }
    return { $ref: `#/components/${this.kind}/${name}` };
  }
}

function eachOperation(paths: Json, visit: (operation: Json) => Json): Json {
  const out: Json = {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) {
      out[path] = item;
      continue;
    }
    const nextItem: Json = {};
    for (const [method, operation] of Object.entries(item))
      nextItem[method] = isObject(operation) && isObject(operation.responses) ? visit(operation) : operation;
    out[path] = nextItem;
  }
  return out;
}

function withHeadersReferred(response: unknown, headers: Registry): unknown {
  if (!isObject(response) || !isObject(response.headers)) return response;
  const referred: Json = {};
  for (const [name, header] of Object.entries(response.headers)) referred[name] = headers.refer(name, header);
  return { ...response, headers: referred };
}

/** The document with repeated answer headers and answers as references; the input is not changed. */
export function shareRepeatedParts(document: Json): Json {
  if (!isObject(document.paths)) return document;
  const components = isObject(document.components) ? document.components : {};
  const headers = new Registry('headers', components.headers);
  // First the headers as references, counting the answers that result (by their JSON text)...
  const uses = new Map<string, number>();
  const paths = eachOperation(document.paths, (operation) => {
    const responses: Responses = {};
    for (const [code, response] of Object.entries(operation.responses as Responses)) {
      const referred = withHeadersReferred(response, headers);
      const text = JSON.stringify(referred);
      uses.set(text, (uses.get(text) ?? 0) + 1);
      responses[code] = referred;
    }
    return { ...operation, responses };
  });
  // ...then each answer given more than once as a reference.
  const answers = new Registry('responses', components.responses);
  const shared = eachOperation(paths, (operation) => {
    const responses: Responses = {};
    for (const [code, response] of Object.entries(operation.responses as Responses))
      responses[code] =
        (uses.get(JSON.stringify(response)) ?? 0) > 1 ? answers.refer(`status-${code}`, response) : response;
    return { ...operation, responses };
  });

  return {
    ...document,
    paths: shared,
    components: { ...components, headers: headers.parts, responses: answers.parts },
  };
}
