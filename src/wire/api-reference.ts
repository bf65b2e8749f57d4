import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { catalogEntries } from '../shared/errors.js';
import { ORDER_SIGNER_JS } from './api-reference-signer.js';
import { shareRepeatedParts } from './openapi-shared-parts.js';

const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="250" height="40" viewBox="0 0 250 40">
<rect x="2" y="6" width="40" height="28" rx="5" fill="#f4b400"/>
<circle cx="14" cy="20" r="4" fill="#1b2a41"/><circle cx="26" cy="20" r="4" fill="#1b2a41"/>
<circle cx="36" cy="20" r="2.5" fill="#1b2a41"/>
<text x="52" y="27" font-family="Helvetica, Arial, sans-serif" font-size="20" font-weight="700" fill="#ffffff">Punchcard API</text>
</svg>`;

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
<rect x="1" y="5" width="30" height="22" rx="4" fill="#f4b400"/>
<circle cx="11" cy="16" r="3.5" fill="#1b2a41"/><circle cx="21" cy="16" r="3.5" fill="#1b2a41"/></svg>`;

// The stock top bar shows the framework's logo and a box with the document's URL; ours names the
// product and links the error catalog instead.
const CSS = `
.swagger-ui .topbar { background: #1b2a41; padding: 6px 0; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .info hgroup.main a { display: none; }
.swagger-ui .topbar-wrapper a { max-width: 260px; }
.swagger-ui .info { margin: 24px 0 12px; }
.swagger-ui .info .title small.version-stamp { background: #f4b400; }
.swagger-ui .info .description p, .swagger-ui .info .description li { font-size: 14px; }
.swagger-ui .scheme-container { padding: 12px 0; box-shadow: none; border-bottom: 1px solid #e3e3e3; }
.pc-signer { max-width: 1460px; margin: 0 auto; padding: 10px 20px; border-bottom: 1px solid #e3e3e3;
  font-family: sans-serif; font-size: 14px; color: #1b2a41; }
.pc-signer input { margin-left: 8px; padding: 4px 8px; width: 360px; font-family: monospace; }
.pc-signer p { margin: 6px 0 0; color: #555; font-size: 13px; }
`;

/** Swagger UI's request interceptor: the order signer of the page (api-reference-signer.ts) when present. */
type Signed = { punchcardSignOrder?: (request: object) => Promise<object> };
const requestInterceptor = (request: object) =>
  (globalThis as unknown as Signed).punchcardSignOrder?.(request) ?? request;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The error catalog as a page of its own, linked from the API reference. */
export function errorCatalogHtml(): string {
  const rows = catalogEntries()
    .map(
      (e) =>
        `<tr id="e${e.errorId}-${e.status}"><td>${e.errorId}</td><td><code>${escapeHtml(e.code)}</code></td>` +
        `<td>${e.status}</td><td>${escapeHtml(e.text)}</td></tr>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Punchcard API: error catalog</title>
<link rel="icon" type="image/svg+xml" href="/docs/static/theme/punchcard.svg">
<style>
body { font-family: Helvetica, Arial, sans-serif; margin: 0; color: #1b2a41; }
header { background: #1b2a41; color: #fff; padding: 14px 24px; }
header a { color: #f4b400; }
main { padding: 16px 24px; max-width: 1100px; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #e3e3e3; vertical-align: top; }
th { background: #f6f7f9; position: sticky; top: 0; }
code { font-size: 13px; }
</style>
</head>
<body>
<header><strong>Punchcard API</strong> · error catalog · <a href="/docs">back to the API reference</a></header>
<main>
<p>Every error the service answers. The POS interface answers <code>{"ErrorId", "ErrorText"}</code> (or the XML
<code>&lt;Error&gt;</code>) with the ErrorId; the operator API answers <code>{"error": {"code", "message"}}</code>
with the code.</p>
<table>
<thead><tr><th>ErrorId</th><th>code</th><th>HTTP</th><th>text</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</main>
</body>
</html>
`;
}

const DOCS_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; " +
    "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** `/docs`: the API reference page with the product's name, and `/docs/errors`: the error catalog. */
export async function registerApiReference(app: FastifyInstance): Promise<void> {
  // The reference's pages and their files get the headers of the service's other pages: scripts
  // and styles only from this origin (the page's style attributes allowed, which Swagger UI sets),
  // never framed, never sniffed, no referrer sent. "Try it out" calls this origin only.
  app.addHook('onSend', async (request, reply, payload) => {
    const path = request.url.split('?')[0] ?? '';
    if (path === '/docs' || path.startsWith('/docs/')) reply.headers(DOCS_HEADERS);
    return payload;
  });
  // The page reads its own copy of the document, repeated parts written once (openapi-shared-parts.ts),
  // made on the first request; the document itself is built once when the routes are ready.
  const pageCopies = new WeakMap<object, Record<string, unknown>>();
  const pageCopy = (document: Record<string, unknown>) => {
    let copy = pageCopies.get(document);
    if (copy === undefined) pageCopies.set(document, (copy = shareRepeatedParts(document)));
    return copy;
  };
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    transformSpecification: pageCopy,
    transformSpecificationClone: false,
    uiConfig: {
      docExpansion: 'list',
      deepLinking: true,
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      filter: true,
      requestInterceptor,
    },
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO), href: '/docs', target: '_self' },
    theme: {
      title: 'Punchcard API reference',
      css: [{ filename: 'punchcard.css', content: CSS }],
      js: [{ filename: 'order-signer.js', content: ORDER_SIGNER_JS }],
      favicon: [
        {
          filename: 'punchcard.svg',
          rel: 'icon',
          type: 'image/svg+xml',
          sizes: 'any',
          content: Buffer.from(FAVICON),
        },
      ],
    },
  });
  const catalog = errorCatalogHtml();
  app.get('/docs/errors', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(catalog),
  );
}
