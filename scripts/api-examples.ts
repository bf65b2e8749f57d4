import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openApiDocument } from './client-generate.js';
import { normaliseEntry } from './example-normalise.js';
import { ExampleSchemas, placeholders } from './example-schemas.js';

/**
 * `npm run docs:examples`: the examples of the API reference, taken from the tests' own traffic
 * (docs/decisions.md, "Examples and webhooks in the reference"). Runs the test files given (or
 * EXAMPLE_TESTS) on the embedded database with PUNCHCARD_TRAFFIC_DIR set, so that the harness writes
 * every exchange down, then keeps per operation one request body and per status one answer, with the
 * names of the headers the answers carried, and one delivery per webhook event, into
 * src/wire/api-examples.json, which the document builder reads. `--from-traffic` reuses the traffic
 * of the last run.
 */

export const EXAMPLES_FILE = resolve('src/wire/api-examples.json');
const TRAFFIC = resolve('.test-cache/traffic');

/**
 * The test files whose traffic covers every operation (test/api/reference-examples.test.ts names an
 * operation none of them calls): files, not folders, so that a run takes minutes, without the
 * browser, load and start-up tests, which call no operation these do not.
 */
const EXAMPLE_TESTS = [
  'test/admin/admin-lists-paging.test.ts',
  'test/admin/receipt-details.test.ts',
  'test/api/errors-and-request-ids.test.ts',
  'test/api/one-paging-style.test.ts',
  'test/api/reference-examples.test.ts',
  'test/campaigns/campaigns.test.ts',
  'test/campaigns/campaign-settings.test.ts',
  'test/campaigns/unique-codes.test.ts',
  'test/campaigns/dry-run.test.ts',
  'test/campaigns/budget-preview.test.ts',
  'test/campaigns/reference-campaign.test.ts',
  'test/cards/profiles-baskets.test.ts',
  'test/cards/tokens.test.ts',
  'test/checkout/balance.test.ts',
  'test/checkout/idempotent-writes.test.ts',
  'test/checkout/orders.test.ts',
  'test/checkout/partial-refunds.test.ts',
  'test/checkout/read-back.test.ts',
  'test/checkout/webhook-deliveries.test.ts',
  'test/checkout/webhooks.test.ts',
  'test/notifications/push.test.ts',
  'test/notifications/receipt-returns.test.ts',
  'test/notifications/welcome-mail.test.ts',
  'test/ops/ops.test.ts',
  'test/portal/portal-api.test.ts',
  'test/portal/portal-baskets.test.ts',
  'test/portal/portal-campaign-codes.test.ts',
  'test/portal/portal-campaign-states.test.ts',
  'test/portal/portal-dry-run-recent.test.ts',
  'test/portal/portal-card-unlock.test.ts',
  'test/portal/portal-customers.test.ts',
  'test/portal/portal-orders.test.ts',
  'test/portal/portal-dashboard-orders.test.ts',
  'test/portal/portal-dashboard-balance.test.ts',
  'test/portal/portal-order-detail.test.ts',
  'test/portal/portal-order-refund.test.ts',
  'test/portal/portal-order-receipt-again.test.ts',
  'test/portal/portal-developers.test.ts',
  'test/portal/portal-webhook-retry-all.test.ts',
  'test/portal/portal-email-correction.test.ts',
  'test/portal/portal-enrolment.test.ts',
  'test/portal/portal-lists-paging.test.ts',
  'test/portal/portal-receipt-details.test.ts',
  'test/portal/portal-team.test.ts',
  'test/portal/portal-password-reset.test.ts',
  'test/pos/bad-input.test.ts',
  'test/pos/refusal-texts.test.ts',
  'test/pos/registration.test.ts',
  'test/pos/security-tokens.test.ts',
  'test/sortiment/sortiment.test.ts',
];

/** Answer headers a reader learns nothing from: the transport's own. */
export const TRANSPORT_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'vary',
  'accept-ranges',
  'x-content-type-options',
  'x-frame-options',
  'content-security-policy',
  'referrer-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'strict-transport-security',
  'permissions-policy',
]);

interface Exchange {
  kind: 'exchange';
  method: string;
  route: string;
  status: number;
  requestBody?: unknown;
  headers: Record<string, string>;
  body?: unknown;
}
interface Delivery {
  kind: 'delivery';
  event: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface ApiExamples {
  operations: Record<
    string,
    { request?: unknown; responses: Record<string, unknown>; headers: Record<string, string[]> }
  >;
  webhooks: Record<string, unknown>;
}

const size = (value: unknown) => JSON.stringify(value ?? null).length;

/** How long an example may be: a screenful of JSON on one line. */
const EXAMPLE_CHARS = 2500;

/**
 * The length an example of an operation's answers may have: EXAMPLE_CHARS, or half again the
 * shortest of them where that is near it already (the dashboard's every answer holds its 24 hours),
 * so that such an operation's example can still show its sections filled rather than only its
 * shortest answer.
 */
function boundOf(shortest: number | undefined): number {
  return Math.max(EXAMPLE_CHARS, Math.ceil(1.5 * (shortest ?? 0)));
}

/** The better of two examples: something rather than nothing, a full list (or a count of something) rather than an empty one, not huge. */
function better(candidate: unknown, current: unknown, bound = EXAMPLE_CHARS): boolean {
  if (current === undefined) return candidate !== undefined;
  if (candidate === undefined) return false;
  const fits = (v: unknown) => size(v) <= bound;
  if (fits(candidate) !== fits(current)) return fits(candidate);
  // An empty list, or an answer that counts nothing (`{"retried": 0}`), says less than one with something.
  const empty = (v: unknown) =>
    Array.isArray(v)
      ? v.length === 0
      : typeof v === 'object' &&
        v !== null &&
        Object.values(v).length > 0 &&
        Object.values(v).every((x) => x === 0);
  if (empty(candidate) !== empty(current)) return !empty(candidate);
  return fits(candidate) ? size(candidate) > size(current) : size(candidate) < size(current);
}

/** The schema of an operation's JSON request body or of its JSON answer of one status, if any. */
function jsonSchema(op: unknown, status: string | null): unknown {
  const o = op as {
    requestBody?: { content?: Record<string, { schema?: unknown }> };
    responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  };
  const content = status === null ? o.requestBody?.content : o.responses?.[status]?.content;
  return content?.['application/json']?.schema;
}

/**
 * Per operation one request body and one answer per status, and one delivery per webhook event.
 * Only examples a reader may copy: each fits its schema in the document, and none carries a
 * placeholder (a value a test sends to probe limits, such as 9007199254740991, or the words of
 * a generated sample). The choice does not depend on the order the tests ran in: of two examples
 * of the same size, the one whose text sorts first. The request is the one whose success answer
 * is shown: of the successful exchanges with a request a reader may copy, the fullest answer
 * decides, the fullest request among equal answers.
 */
export function examplesFrom(
  entries: readonly (Exchange | Delivery)[],
  doc: Record<string, unknown>,
): ApiExamples {
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  const schemas = new ExampleSchemas(doc);
  const out: ApiExamples = { operations: {}, webhooks: {} };
  const usable = (schema: unknown, value: unknown) =>
    value !== undefined &&
    placeholders(value).length === 0 &&
    (schema === undefined || schemas.fits(schema, value));
  const sorted = [...entries].sort((a, b) => {
    const x = JSON.stringify(a);
    const y = JSON.stringify(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const pathOf = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  // The shortest answer of each operation and status, for its bound.
  const shortest = new Map<string, number>();
  for (const e of sorted) {
    if (e.kind !== 'exchange' || e.body === undefined) continue;
    const key = `${e.method} ${pathOf(e.route)} ${e.status}`;
    shortest.set(key, Math.min(shortest.get(key) ?? Infinity, size(e.body)));
  }
  const pairs = new Map<string, Exchange>();
  for (const e of sorted) {
    if (e.kind === 'delivery') {
      if (e.event && placeholders(e.body).length === 0 && better(e.body, out.webhooks[e.event]))
        out.webhooks[e.event] = e.body;
      continue;
    }
    const path = pathOf(e.route);
    const method = e.method.toLowerCase();
    const operation = paths[path]?.[method];
    if (!operation) continue;
    const key = `${e.method} ${path}`;
    const op = (out.operations[key] ??= { responses: {}, headers: {} });
    const status = String(e.status);
    const bound = boundOf(shortest.get(`${key} ${status}`));
    if (better(e.body, op.responses[status], bound) && usable(jsonSchema(operation, status), e.body))
      op.responses[status] = e.body;
    const pair = pairs.get(key);
    const pairBound = pair === undefined ? bound : boundOf(shortest.get(`${key} ${pair.status}`));
    if (
      e.status < 300 &&
      usable(jsonSchema(operation, null), e.requestBody) &&
      (e.body === undefined || usable(jsonSchema(operation, status), e.body)) &&
      (pair === undefined ||
        better(e.body, pair.body, Math.min(bound, pairBound)) ||
        (!better(pair.body, e.body, Math.min(bound, pairBound)) && better(e.requestBody, pair.requestBody)))
    )
      pairs.set(key, e);
    const names = new Set(op.headers[status] ?? []);
    for (const name of Object.keys(e.headers)) if (!TRANSPORT_HEADERS.has(name)) names.add(name);
    if (names.size > 0) op.headers[status] = [...names].sort();
  }
  for (const [key, pair] of pairs) {
    const op = out.operations[key];
    if (op === undefined) continue;
    op.request = pair.requestBody;
    if (pair.body !== undefined) op.responses[String(pair.status)] = pair.body;
  }
  const byKey = Object.fromEntries(Object.entries(out.operations).sort(([a], [b]) => a.localeCompare(b)));
  return { operations: byKey, webhooks: out.webhooks };
}

/**
 * The traffic of the last run, each entry with its made-up values made the same on every run. A
 * file is named by the test worker's process id and the time it began (test/support/traffic.ts),
 * before any test clock of that worker was made.
 */
function readTraffic(dir = TRAFFIC): (Exchange | Delivery)[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => {
      const named = /^traffic-(\d+)-(\d+)\.jsonl$/.exec(f);
      const pid = named?.[1] ?? null;
      const startedAtMs = named?.[2] === undefined ? null : Number(named[2]);
      return readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => normaliseEntry(JSON.parse(line) as Exchange | Delivery, pid, startedAtMs));
    });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (!args.includes('--from-traffic')) {
    rmSync(TRAFFIC, { recursive: true, force: true });
    const files = args.length > 0 ? args : (process.env.EXAMPLE_TESTS?.split(' ') ?? EXAMPLE_TESTS);
    const env: NodeJS.ProcessEnv = { ...process.env, PUNCHCARD_TRAFFIC_DIR: TRAFFIC };
    delete env.TEST_DATABASE_URL;
    // The tests' outcome does not matter here: their traffic does (a failing test still talked).
    spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...files], {
      env,
      stdio: ['ignore', 2, 2],
    });
  }
  const doc = await openApiDocument();
  const examples = examplesFrom(readTraffic(), doc);
  writeFileSync(EXAMPLES_FILE, `${JSON.stringify(examples, null, 1)}\n`);
  process.stderr.write(
    `api-examples: ${Object.keys(examples.operations).length} operations, ${Object.keys(examples.webhooks).length} webhook events in ${EXAMPLES_FILE}\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`api-examples failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
