import type { SwaggerOptions } from '@fastify/swagger';
import { documentRequestId } from './request-id.js';
import { type ApiExamples, addExamples } from './openapi-examples.js';
import { type Json, isObject } from './json-object.js';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * Query fields the handler checks itself, to answer their own ErrorIds instead of 1000: optional
     * for validation, required in the API document.
     */
    requiredQuery?: readonly string[];
  }
}

const DESCRIPTION = `Punchcard: rewards, loyalty points, stored balances and digital receipts for point-of-sale systems.

- **POS interface v3** under \`/api/pos/v3\`: JSON or XML, headers \`DevKey\` and \`trackingUnitId\` (and
  \`SecurityToken\` where value moves). The answer is JSON when \`Accept\` names \`application/json\`, or when
  \`Accept\` names neither format and the request body is JSON; otherwise XML. Amounts are decimals in the
  currency's major unit. Request field names are matched case-insensitively; unknown fields are ignored.
  Request bodies may be gzip-compressed (\`Content-Encoding: gzip\`); the size limit counts the decompressed
  bytes. Errors: \`{ErrorId, ErrorText}\`.
- **Checkout interface v1** under \`/api/v1\` (and \`/webhooks\`): JSON, \`Authorization: Token <accessToken>\`;
  orders also carry \`Idempotency-Key\`, \`Timestamp\` and \`Security-Token\`. Amounts are integers in the
  minor unit. Errors: \`{"error": {"code", "message", "details"}}\`.
- **Merchant portal API** under \`/portal/api/v1\`: JSON, the session cookie of \`/portal\`; changes also need the
  \`X-CSRF-Token\` header. Errors as the operator API's.
- **Operator API** under \`/api/admin/v1\`: JSON, \`Authorization: Bearer <ADMIN_TOKEN>\`. Errors:
  \`{"error": {"code", "message", "details"}}\`.

Every error id with its HTTP status and text: [error catalog](/docs/errors). This document:
[/openapi.json](/openapi.json).
`;

/** Tags in reading order; every operation names one of them. */
export const API_TAGS = [
  { name: 'POS: merchants', description: 'Merchant info and outlets, as a till sets itself up.' },
  { name: 'POS: registration', description: 'Terminals (trackingUnits): registration and re-assignment.' },
  { name: 'POS: baskets', description: 'Basket upload with rewards and loyalty points, grant, returns.' },
  { name: 'POS: tokens', description: 'Customer and gift cards: register, lock, dispose, balances.' },
  { name: 'POS: sortiments', description: 'Groups and articles, bulk upload, digital-menu reads.' },
  {
    name: 'Operator: merchants',
    description: 'DevKeys, merchants, brands, terminal activation, what receipts say of the merchant.',
  },
  { name: 'Operator: campaigns', description: 'Campaigns (versioned) and dry runs.' },
  { name: 'Operator: loyalty schemes', description: 'Loyalty schemes (versioned).' },
  { name: 'Operator: consumers', description: 'Consumer profiles, their cards and one-time passwords.' },
  { name: 'Operator: service', description: 'A backup of the embedded database.' },
  {
    name: 'Checkout',
    description:
      'Checkout v1: priced orders paid from a stored balance, profiles, reservations, top-ups, refunds, webhooks.',
  },
  { name: 'Portal: session', description: 'Merchant portal: sign-in, sign-out, the signed-in user.' },
  {
    name: 'Portal: team',
    description: "Merchant portal: the merchant's users, their roles and passwords.",
  },
  {
    name: 'Portal: terminals',
    description: "Merchant portal: the merchant's terminals and their activation.",
  },
  { name: 'Portal: campaigns', description: 'Merchant portal: campaigns, loyalty schemes and the dry run.' },
  { name: 'Portal: reports', description: 'Merchant portal: dashboard and basket search.' },
  { name: 'Portal: cards', description: 'Merchant portal: cards, balances and points.' },
  { name: 'Portal: catalog', description: 'Merchant portal: brands, outlets, sortiments and articles.' },
  {
    name: 'Portal: developers',
    description: 'Merchant portal: checkout clients, webhooks and their deliveries with every attempt.',
  },
  { name: 'Portal: settings', description: 'Merchant portal: what the receipts say of the merchant.' },
  { name: 'Consumer portal', description: 'The calls the consumer portal (/me) makes from the browser.' },
  { name: 'Health probes', description: 'Liveness, readiness and Prometheus metrics for the platform.' },
] as const;

/**
 * Security requirements a route declares in its schema (`security: auth.unitSigned`), so that a
 * generated client sends every header the call needs.
 */
export const auth = {
  /** Probes: no credentials. */
  none: [] as Record<string, string[]>[],
  devKey: [{ DevKey: [] }] as Record<string, string[]>[],
  unit: [{ DevKey: [], TrackingUnitId: [] }] as Record<string, string[]>[],
  /**
   * Operations that move value: the SecurityToken is computed per call from the unit's
   * checksumSecret; SecurityToken-V2 instead of it (required for terminals switched to it).
   */
  unitSigned: [
    { DevKey: [], TrackingUnitId: [], SecurityToken: [] },
    { DevKey: [], TrackingUnitId: [], SecurityTokenV2: [] },
  ] as Record<string, string[]>[],
  operator: [{ AdminToken: [] }] as Record<string, string[]>[],
  /** Checkout v1: the client's access token. */
  checkoutToken: [{ CheckoutToken: [] }] as Record<string, string[]>[],
  /** Checkout v1 orders: the token and the three headers of the signature. */
  checkoutSigned: [
    { CheckoutToken: [], IdempotencyKey: [], CheckoutTimestamp: [], CheckoutSecurityToken: [] },
  ] as Record<string, string[]>[],
  /** Merchant portal reads: the session cookie. */
  portal: [{ PortalSession: [] }] as Record<string, string[]>[],
  /** Merchant portal changes: the session cookie and its CSRF token. */
  portalChange: [{ PortalSession: [], CsrfToken: [] }] as Record<string, string[]>[],
  /** The consumer portal's session cookie. */
  consumerSession: [{ ConsumerSession: [] }] as Record<string, string[]>[],
  /** /metrics when METRICS_TOKEN is set. */
  metrics: [{ MetricsToken: [] }] as Record<string, string[]>[],
};

/** A 2xx answer with its description in the document (instead of "Default Response"). */
export function answer<T extends object>(description: string, schema: T): T {
  return { ...schema, description };
}

/** A name OpenAPI allows as a component's key: the text without other characters. */
export function componentName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '');
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Moves every titled schema of request bodies and answers into components.schemas and refers to
 * it there, so that a client generator names its types after them; a body or 2xx answer without
 * a title is named after its operation (`CreateOutletRequest`, `ReadProfileResult`; a generated
 * client keeps `...Response` for its own types).
 */
function nameSchemas(doc: Json): Json {
  const components = (doc.components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Record<string, unknown>;
  const hoist = (schema: unknown, fallbackName: string | null): unknown => {
    if (Array.isArray(schema)) return schema.map((s) => hoist(s, null));
    if (!isObject(schema) || typeof schema.$ref === 'string') return schema;
    const out: Json = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hoist(v, null)]));
      } else if (['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties', 'not'].includes(key)) {
        out[key] = hoist(value, null);
      } else {
        out[key] = value;
      }
    }
    const title = typeof out.title === 'string' ? componentName(out.title) : fallbackName;
    // Scalars stay inline: only objects and arrays make types worth naming.
    if (!title || (out.type !== 'object' && out.type !== 'array')) return out;
    // An answer's description belongs to the answer, not to the shared type.
    const { description: _description, ...shared } = out;
    const named = { ...shared, title };
    const existing = schemas[title];
    if (existing !== undefined && !sameJson(existing, named)) {
      throw new Error(`Two different schemas are titled ${title} in the API document`);
    }
    schemas[title] = named;
    return { $ref: `#/components/schemas/${title}` };
  };
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      if (!isObject(operation)) continue;
      const id = typeof operation.operationId === 'string' ? operation.operationId : null;
      const base = id ? id.charAt(0).toUpperCase() + id.slice(1) : null;
      const body = operation.requestBody;
      if (isObject(body) && isObject(body.content)) {
        for (const media of Object.values(body.content)) {
          if (isObject(media)) media.schema = hoist(media.schema, base && `${base}Request`);
        }
      }
      const responses = isObject(operation.responses) ? operation.responses : {};
      for (const [status, response] of Object.entries(responses)) {
        if (!isObject(response) || !isObject(response.content)) continue;
        const fallback = base && status.startsWith('2') ? `${base}Result` : null;
        for (const media of Object.values(response.content)) {
          if (isObject(media)) media.schema = hoist(media.schema, fallback);
        }
      }
    }
  }
  return doc;
}

const ACCEPT_PARAMETER = {
  in: 'header',
  name: 'Accept',
  required: false,
  description:
    'The answer format: application/json for JSON. Without it a call with a JSON body answers JSON and ' +
    'any other call XML (the interface default).',
  schema: { type: 'string', enum: ['application/json', 'application/xml'] },
};

/** Every POS operation documents the Accept header by which a client asks for JSON. */
function documentAccept(doc: Json): Json {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const [path, operations] of Object.entries(paths)) {
    if (!path.startsWith('/api/pos/')) continue;
    for (const operation of Object.values(operations)) {
      if (!isObject(operation)) continue;
      const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
      operation.parameters = [...parameters, ACCEPT_PARAMETER];
    }
  }
  return doc;
}

/**
 * The servers of the document, relative to PUBLIC_BASE_URL: its path only, so that no host or port
 * is baked in and a client resolves it against the address it read the document from.
 */
export function apiServers(publicBaseUrl: string): { url: string; description: string }[] {
  const path = new URL(publicBaseUrl).pathname.replace(/\/+$/, '');
  return [
    { url: path === '' ? '/' : path, description: 'The Punchcard instance that serves this document.' },
  ];
}

/** The OpenAPI document is generated from the route schemas; POS routes speak XML too. */
export interface DocumentExtras {
  /** /metrics asks for METRICS_TOKEN. */
  metricsToken?: boolean;
  /** The `webhooks` section: what the service sends to receivers (OpenAPI 3.1). */
  webhooks?: Record<string, unknown>;
  /** Schemas the webhooks refer to, added to components.schemas as they are. */
  schemas?: Record<string, unknown>;
  /** Examples and answer headers from the tests' traffic (src/wire/api-examples.json). */
  examples?: ApiExamples;
}

function addWebhooks(doc: Json, extras: DocumentExtras): Json {
  if (extras.schemas) {
    const components = (doc.components ??= {}) as Json;
    components.schemas = { ...((components.schemas as Json | undefined) ?? {}), ...extras.schemas };
  }
  if (extras.webhooks) doc.webhooks = extras.webhooks;
  return doc;
}

export function openApiOptions(publicBaseUrl: string, extras: DocumentExtras = {}): SwaggerOptions {
  const metricsToken = extras.metricsToken === true;
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Punchcard API',
        version: '1.0.0',
        description: DESCRIPTION,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: apiServers(publicBaseUrl),
      tags: API_TAGS.map((t) => ({ ...t })),
      components: {
        securitySchemes: {
          DevKey: {
            type: 'apiKey',
            in: 'header',
            name: 'DevKey',
            description: 'Developer key the operator issued to the POS vendor.',
          },
          TrackingUnitId: {
            type: 'apiKey',
            in: 'header',
            name: 'trackingUnitId',
            description: 'The terminal, as registration returned it.',
          },
          SecurityToken: {
            type: 'apiKey',
            in: 'header',
            name: 'SecurityToken',
            description:
              'Lower-case hex MD5 of the operation\'s input + "qPnsS14" + checksumSecret; each operation names its input.',
          },
          SecurityTokenV2: {
            type: 'apiKey',
            in: 'header',
            name: 'SecurityToken-V2',
            description:
              '`t=<unix seconds>,s=<hex HMAC-SHA256>` keyed with the checksumSecret over METHOD, path with query, t and ' +
              'the body, each signature accepted once within 300 s (docs/security.md has a worked example).',
          },
          AdminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (ADMIN_TOKEN).' },
          CheckoutToken: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: '`Token <accessToken>` of a checkout client the operator issued.',
          },
          IdempotencyKey: {
            type: 'apiKey',
            in: 'header',
            name: 'Idempotency-Key',
            description: 'A key the client makes per order (at most 255 printable characters); kept 24 h.',
          },
          CheckoutTimestamp: {
            type: 'apiKey',
            in: 'header',
            name: 'Timestamp',
            description: 'ISO 8601 with offset, or Unix seconds; within 300 s of the server clock.',
          },
          CheckoutSecurityToken: {
            type: 'apiKey',
            in: 'header',
            name: 'Security-Token',
            description:
              'Lowercase hex HMAC-SHA256 keyed with the securitySecret over Timestamp + "\\n" + Idempotency-Key + "\\n" + the body bytes.',
          },
          PortalSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'punchcard_portal',
            description: 'The merchant portal session, set by signing in (POST /portal/api/v1/session).',
          },
          CsrfToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-CSRF-Token',
            description:
              'The csrfToken answered by signing in (and by GET /portal/api/v1/me); every change needs it.',
          },
          ConsumerSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'pc_me',
            description: 'The consumer portal session, set by its one-time sign-in link.',
          },
          // Only when /metrics asks for it: the document names no scheme that no operation uses.
          ...(metricsToken
            ? { MetricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN.' } }
            : {}),
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const doc = documentObject.openapiObject as Json;
      const done = addExamples(
        addWebhooks(documentRequestId(documentAccept(nameSchemas(doc))), extras),
        extras.examples,
      );
      return done as typeof documentObject.openapiObject;
    },
    transform: ({ schema, url }) => {
      if (!schema) return { schema, url };
      const s = { ...schema } as Record<string, unknown>;
      const isPos = url.startsWith('/api/pos/');
      const isAdmin = url.startsWith('/api/admin/');
      // Errors every route of an API can answer, documented once here.
      const responses = { ...((s.response as Record<string, unknown> | undefined) ?? {}) };
      const errorRef = isPos ? 'PosError' : 'ApiError';
      const add = (status: number, description: string) => {
        if (!responses[status]) responses[status] = { $ref: errorRef, description };
      };
      add(500, isPos ? 'Processing failure (1).' : 'Processing failure (internal_error).');
      add(
        503,
        isPos
          ? 'The database is not reachable just now or did not answer in time, as during a failover or a network partition, or has no room to write, or a balance the request needs stayed locked by another session, or the work ran past the database’s time limit (1010); nothing was acknowledged: repeat the request after the seconds in Retry-After.'
          : 'The database is not reachable just now or did not answer in time, as during a failover or a network partition, or has no room to write, or a balance the request needs stayed locked by another session, or the work ran past the database’s time limit (service_unavailable); nothing was acknowledged: repeat the request (the same Idempotency-Key) after the seconds in Retry-After.',
      );
      if (s.body) {
        add(400, 'Body invalid (1000 / invalid_request).');
        add(413, 'Body too large after decompression (1008 / payload_too_large).');
        add(415, 'Content-Type or Content-Encoding not supported (1007, 1009).');
      }
      if (s.querystring || s.params) add(400, 'Query or path invalid (1000 / invalid_request).');
      if (isAdmin) add(401, 'Authorization missing or wrong (unauthorized).');
      if (isPos) add(401, 'DevKey or trackingUnitId missing or unknown (1001, 1002).');
      s.response = responses;
      // Query fields the handler checks itself (to answer their own ErrorIds) are still required of callers.
      const required = s.requiredQuery;
      delete s.requiredQuery;
      if (Array.isArray(required) && isObject(s.querystring)) {
        const q = s.querystring;
        const already = Array.isArray(q.required) ? (q.required as string[]) : [];
        s.querystring = { ...q, required: [...new Set([...already, ...(required as string[])])] };
      }
      if (isPos) {
        // JSON first: a generated client then sends JSON bodies and reads JSON answers.
        s.consumes = ['application/json', 'application/xml'];
        if (!s.produces) s.produces = ['application/json', 'application/xml'];
        if (!s.security) s.security = auth.unit;
      } else if (isAdmin) {
        if (!s.security) s.security = auth.operator;
      }
      return { schema: s as typeof schema, url };
    },
  };
}
