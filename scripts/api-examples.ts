import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openApiDocument } from './client-generate.js';

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

/** The test files whose traffic covers every operation. */
const EXAMPLE_TESTS = [
  'test/api',
  'test/checkout',
  'test/portal',
  'test/pos',
  'test/admin',
  'test/ops',
  'test/cards',
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

/** The better of two examples: something rather than nothing, a full list rather than an empty one, not huge. */
function better(candidate: unknown, current: unknown): boolean {
  if (current === undefined) return candidate !== undefined;
  if (candidate === undefined) return false;
  const fits = (v: unknown) => size(v) <= 2500;
  if (fits(candidate) !== fits(current)) return fits(candidate);
  const empty = (v: unknown) => Array.isArray(v) && v.length === 0;
  if (empty(candidate) !== empty(current)) return !empty(candidate);
  return fits(candidate) ? size(candidate) > size(current) : size(candidate) < size(current);
}

export function examplesFrom(
  entries: readonly (Exchange | Delivery)[],
  doc: Record<string, unknown>,
): ApiExamples {
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  const out: ApiExamples = { operations: {}, webhooks: {} };
  for (const e of entries) {
    if (e.kind === 'delivery') {
      if (e.event && better(e.body, out.webhooks[e.event])) out.webhooks[e.event] = e.body;
      continue;
    }
    const path = e.route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const method = e.method.toLowerCase();
    if (!paths[path]?.[method]) continue;
    const key = `${e.method} ${path}`;
    const op = (out.operations[key] ??= { responses: {}, headers: {} });
    const status = String(e.status);
    if (e.body !== undefined && better(e.body, op.responses[status])) op.responses[status] = e.body;
    if (e.status < 300 && e.requestBody !== undefined && better(e.requestBody, op.request))
      op.request = e.requestBody;
    const names = new Set(op.headers[status] ?? []);
    for (const name of Object.keys(e.headers)) if (!TRANSPORT_HEADERS.has(name)) names.add(name);
    if (names.size > 0) op.headers[status] = [...names].sort();
  }
  const sorted = Object.fromEntries(Object.entries(out.operations).sort(([a], [b]) => a.localeCompare(b)));
  return { operations: sorted, webhooks: out.webhooks };
}

function readTraffic(): (Exchange | Delivery)[] {
  if (!existsSync(TRAFFIC)) return [];
  return readdirSync(TRAFFIC)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(join(TRAFFIC, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Exchange | Delivery),
    );
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
