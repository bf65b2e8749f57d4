import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** One response as the server sent it, recorded by the test harness. */
export interface RecordedResponse {
  method: string;
  route: string;
  status: number;
  contentType: string;
  body: string;
}

interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>
  >;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The validator of an OpenAPI document, by the document's text: every test app of a process has the
 * same document, and compiling its response schemas again for each app cost more than the checks.
 */
const validators = new Map<string, Ajv2020>();

function validatorOf(doc: unknown): Ajv2020 {
  const text = JSON.stringify(doc);
  let ajv = validators.get(text);
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema(JSON.parse(text) as object, 'openapi.json');
    validators.set(text, ajv);
  }
  return ajv;
}

/**
 * Checks recorded responses against the OpenAPI document: the route and status are
 * documented, and a JSON body matches the documented schema. Returns the problems found.
 */
export function checkResponses(doc: unknown, responses: readonly RecordedResponse[]): string[] {
  const ajv = validatorOf(doc);
  const spec = doc as OpenApiDoc;
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const r of responses) {
    if (!r.route || r.route.startsWith('/docs') || r.route === '/openapi.json') continue;
    // The portal's HTML pages and static files are not API operations (its JSON API is).
    if (r.route.startsWith('/portal') && !r.route.startsWith('/portal/api/')) continue;
    // Pages for people (the receipt, the consumer portal) are HTML, not API operations, like /docs.
    if (r.route.startsWith('/receipts/') || r.route === '/me' || r.route.startsWith('/me/')) continue;
    const path = r.route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const method = r.method.toLowerCase();
    const operation = spec.paths[path]?.[method];
    const where = `${r.method} ${path} ${r.status}`;
    if (!operation) {
      problems.push(`${where}: route not in the OpenAPI document`);
      continue;
    }
    const response = operation.responses?.[String(r.status)];
    if (!response) {
      problems.push(`${where}: status not documented`);
      continue;
    }
    if (!r.contentType.includes('json') || r.body === '') continue;
    if (!response.content?.['application/json']) {
      problems.push(`${where}: JSON body sent but not documented`);
      continue;
    }
    const key = `${where}|${r.body}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const ref = `openapi.json#/paths/${escapePointer(path)}/${method}/responses/${r.status}/content/${escapePointer('application/json')}/schema`;
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    let body: unknown;
    try {
      body = JSON.parse(r.body);
    } catch {
      problems.push(`${where}: body is not JSON`);
      continue;
    }
    if (!validate(body)) {
      problems.push(`${where}: ${ajv.errorsText(validate.errors)} in ${r.body.slice(0, 300)}`);
    }
  }
  return problems;
}
