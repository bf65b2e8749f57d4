import type { SwaggerOptions } from '@fastify/swagger';
import { catalogEntries } from '../shared/errors.js';

function errorTable(): string {
  const rows = catalogEntries().map((e) => `| ${e.errorId} | ${e.code} | ${e.status} | ${e.text} |`);
  return ['| ErrorId | code | HTTP | text |', '|---|---|---|---|', ...rows].join('\n');
}

const DESCRIPTION = `Punchcard: rewards, loyalty points, stored balances and digital receipts for point-of-sale systems.

- **POS interface v3** under \`/api/pos/v3\`: JSON or XML (default XML), headers \`DevKey\` and \`trackingUnitId\`.
  Amounts are decimals in the currency's major unit. Request field names are matched case-insensitively; unknown
  fields are ignored. Request bodies may be gzip-compressed (\`Content-Encoding: gzip\`); the size limit counts the
  decompressed bytes. Errors: \`{ErrorId, ErrorText}\`.
- **Operator API** under \`/api/admin/v1\`: JSON, \`Authorization: Bearer <ADMIN_TOKEN>\`. Errors:
  \`{"error": {"code", "message", "details"}}\`.

## Error catalog

${errorTable()}
`;

/** The OpenAPI document is generated from the route schemas; POS routes speak XML too. */
export function openApiOptions(publicBaseUrl: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Punchcard API', version: '1.0.0', description: DESCRIPTION },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          DevKey: { type: 'apiKey', in: 'header', name: 'DevKey' },
          TrackingUnitId: { type: 'apiKey', in: 'header', name: 'trackingUnitId' },
          SecurityToken: { type: 'apiKey', in: 'header', name: 'SecurityToken' },
          AdminToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url, route }) => {
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
      if (s.body) {
        add(400, 'Body invalid (1000 / invalid_request).');
        add(413, 'Body too large after decompression (1008 / payload_too_large).');
        add(415, 'Content-Type or Content-Encoding not supported (1007, 1009).');
      }
      if (s.querystring || s.params) add(400, 'Query or path invalid (1000 / invalid_request).');
      if (isAdmin) add(401, 'Authorization missing or wrong (unauthorized).');
      if (isPos) add(401, 'DevKey or trackingUnitId missing or unknown (1001, 1002).');
      s.response = responses;
      if (isPos) {
        s.consumes = ['application/xml', 'application/json'];
        if (!s.produces) s.produces = ['application/xml', 'application/json'];
        const security: Record<string, string[]>[] = [{ DevKey: [] }];
        if (
          !/\/(merchants|trackingUnits)\b/.test(url) ||
          (url.endsWith('/trackingUnits') && route.method === 'POST')
        ) {
          security[0] = { DevKey: [], TrackingUnitId: [] };
        }
        s.security = security;
      } else if (isAdmin) {
        s.security = [{ AdminToken: [] }];
      }
      return { schema: s as typeof schema, url };
    },
  };
}
