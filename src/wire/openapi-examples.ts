/**
 * What the API document shows integrators beyond the route schemas (docs/decisions.md, "Examples
 * and webhooks in the reference"): an example on every request and answer, taken from the tests'
 * traffic (`npm run docs:examples` writes src/wire/api-examples.json); the answer headers the
 * traffic carried, described from one catalog; and the request headers of the checkout's
 * signature and idempotency as parameters.
 */

import { hasSchemaShape } from './example-shape.js';
import { type Json, isObject } from './json-object.js';

/** The examples file: per `METHOD /path`, one request body, one answer per status, the answer headers seen. */
export interface ApiExamples {
  operations: Record<
    string,
    { request?: unknown; responses: Record<string, unknown>; headers: Record<string, string[]> }
  >;
  webhooks: Record<string, unknown>;
}

interface HeaderDoc {
  name: string;
  description: string;
  schema: Json;
}

const text = { type: 'string' };
const integer = { type: 'integer', minimum: 0 };

/**
 * The answer headers worth documenting, by lower-case name. An answer header the traffic carries
 * that is neither here nor one of the transport's own makes the examples test fail, so that every
 * header a route starts to send gets its description.
 */
export const RESPONSE_HEADERS: Record<string, HeaderDoc> = {
  'idempotent-replayed': {
    name: 'Idempotent-Replayed',
    description: 'true: this is the stored answer of an earlier request under the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'retry-after': { name: 'Retry-After', description: 'Seconds to wait before trying again.', schema: text },
  etag: {
    name: 'ETag',
    description: 'The version of the answer: send it as If-None-Match to get 304 while nothing changed.',
    schema: text,
  },
  'last-modified': { name: 'Last-Modified', description: 'When the answer last changed.', schema: text },
  'cache-control': { name: 'Cache-Control', description: 'How long the answer may be kept.', schema: text },
  location: { name: 'Location', description: 'Where the resource is.', schema: text },
  'request-id': {
    name: 'Request-Id',
    description:
      'The id of this request in the service logs (the X-Request-Id sent, or one made); quote it to support.',
    schema: text,
  },
  'x-request-id': { name: 'X-Request-Id', description: 'The same as Request-Id.', schema: text },
  ratelimit: {
    name: 'RateLimit',
    description:
      'The limit this request counted against: remaining requests and seconds until the window resets.',
    schema: text,
  },
  'ratelimit-policy': {
    name: 'RateLimit-Policy',
    description: 'The limit: requests per window.',
    schema: text,
  },
  'ratelimit-limit': {
    name: 'RateLimit-Limit',
    description: 'Requests allowed in the window.',
    schema: integer,
  },
  'ratelimit-remaining': {
    name: 'RateLimit-Remaining',
    description: 'Requests left in the window.',
    schema: integer,
  },
  'ratelimit-reset': {
    name: 'RateLimit-Reset',
    description: 'Seconds until the window resets.',
    schema: integer,
  },
  'set-cookie': { name: 'Set-Cookie', description: 'The session cookie (HttpOnly).', schema: text },
  'content-disposition': {
    name: 'Content-Disposition',
    description: 'A download, with its file name.',
    schema: text,
  },
  'x-csrf-token': {
    name: 'X-CSRF-Token',
    description: 'The CSRF token every change must send.',
    schema: text,
  },
};

/** The request headers of a checkout call, by security scheme, shown as parameters. */
const REQUEST_HEADERS: Record<string, Json> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    description:
      'A key the client makes per operation (1 to 255 printable ASCII characters), kept 24 h: the same key and ' +
      'body answers the first answer again with Idempotent-Replayed: true and books nothing more.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: '5f0c9a4e-3b1d-4c57-9a0e-6f2d8b7c1e42',
  },
  CheckoutTimestamp: {
    name: 'Timestamp',
    in: 'header',
    description:
      'Unix seconds (or ISO 8601 with an offset) of the request; within 300 s of the server clock.',
    schema: { type: 'string' },
    example: '1772451000',
  },
  CheckoutSecurityToken: {
    name: 'Security-Token',
    in: 'header',
    description:
      'Lowercase hex HMAC-SHA256 keyed with the securitySecret over Timestamp + "\\n" + Idempotency-Key + "\\n" + ' +
      'the body bytes. On this page: paste the secret above the operations and it is computed for you.',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    example: '9b2f6c0d7c3e4a5b8e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f',
  },
};

function operations(doc: Json): [string, string, Json][] {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) =>
      isObject(op) ? [[path, method, op] as [string, string, Json]] : [],
    ),
  );
}

/**
 * The checkout's signature and idempotency headers as parameters: required where the operation's
 * security names them (orders), optional where its answer says a key replays it (keyed writes).
 */
function documentRequestHeaders(op: Json): void {
  const parameters = Array.isArray(op.parameters) ? (op.parameters as Json[]) : [];
  const has = (name: string) => parameters.some((p) => p.in === 'header' && p.name === name);
  const security = Array.isArray(op.security) ? (op.security as Json[]) : [];
  const schemes = new Set(security.flatMap((s) => Object.keys(s)));
  for (const [scheme, parameter] of Object.entries(REQUEST_HEADERS)) {
    if (schemes.has(scheme) && !has(String(parameter.name)))
      parameters.push({ ...parameter, required: true });
  }
  const responses = isObject(op.responses) ? op.responses : {};
  const keyed = Object.values(responses).some(
    (r) => isObject(r) && isObject(r.headers) && 'Idempotent-Replayed' in r.headers,
  );
  if (keyed && !has('Idempotency-Key'))
    parameters.push({ ...REQUEST_HEADERS.IdempotencyKey, required: false });
  if (parameters.length > 0) op.parameters = parameters;
}

function jsonMedia(container: unknown): Json | null {
  if (!isObject(container) || !isObject(container.content)) return null;
  const media = container.content['application/json'];
  return isObject(media) ? media : null;
}

/**
 * Examples, answer headers and request header parameters, added to the document in place. An
 * example that no longer has its schema's shape (taken before the schema changed, as a list
 * recorded before it answered pages) is left out: the reference's test then names the operation.
 */
export function addExamples(doc: Json, examples: ApiExamples | undefined): Json {
  const components = isObject(doc.components) ? doc.components : {};
  const named = isObject(components.schemas) ? components.schemas : {};
  const put = (media: Json | null, example: unknown) => {
    if (media && example !== undefined && hasSchemaShape(media.schema, example, named))
      media.example = example;
  };
  for (const [path, method, op] of operations(doc)) {
    documentRequestHeaders(op);
    const ex = examples?.operations[`${method.toUpperCase()} ${path}`];
    if (!ex) continue;
    put(jsonMedia(op.requestBody), ex.request);
    const responses = isObject(op.responses) ? op.responses : {};
    for (const [status, response] of Object.entries(responses)) {
      if (!isObject(response)) continue;
      put(jsonMedia(response), ex.responses[status]);
      const names = (ex.headers[status] ?? []).flatMap((n) =>
        RESPONSE_HEADERS[n] ? [RESPONSE_HEADERS[n]] : [],
      );
      if (names.length === 0) continue;
      const headers = isObject(response.headers) ? response.headers : {};
      const present = new Set(Object.keys(headers).map((n) => n.toLowerCase()));
      for (const h of names) {
        if (!present.has(h.name.toLowerCase()))
          headers[h.name] = { description: h.description, schema: h.schema };
      }
      response.headers = headers;
    }
  }
  return doc;
}
