import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { POSTGRES_URL } from './lib/server.js';
import {
  type HttpAnswer,
  HttpClient,
  type PosIdentity,
  type ServerProcess,
  setupTerminalHttp,
  startServerProcess,
} from '../test/support/http-pos.js';

/**
 * Card withdrawals through HTTP against the server as a child process: on 1,000 distinct cards
 * and on one hot card, on the embedded database and on PostgreSQL (BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL), next to the one-INSERT baseline measured in the same run.
 */
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 8_000);
const WARMUP_MS = 1_000;
const CARDS = 1_000;

interface Run {
  ops: number;
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  insufficient: number;
  otherErrors: number;
  otherSample: string;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] ?? 0;
}

/** A closed loop: CONNECTIONS workers, each sending its next request when the last one answered. */
async function load(send: (i: number) => Promise<HttpAnswer>): Promise<Run> {
  let counter = 0;
  const warmupEnd = performance.now() + WARMUP_MS;
  const end = warmupEnd + DURATION_MS;
  const latencies: number[] = [];
  let ok = 0;
  let insufficient = 0;
  let otherErrors = 0;
  let otherSample = '';
  const worker = async (): Promise<void> => {
    for (;;) {
      const started = performance.now();
      if (started >= end) return;
      const answer = await send(counter++);
      const done = performance.now();
      if (started < warmupEnd) continue;
      latencies.push(done - started);
      if (answer.status === 200) ok += 1;
      else if ((answer.body as { ErrorId?: number } | null)?.ErrorId === 13003) insufficient += 1;
      else {
        otherErrors += 1;
        otherSample ||= `${answer.status} ${JSON.stringify(answer.body)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  latencies.sort((a, b) => a - b);
  return {
    ops: latencies.length,
    opsPerSecond: Math.round(latencies.length / (DURATION_MS / 1000)),
    p50Ms: Number(percentile(latencies, 50).toFixed(2)),
    p99Ms: Number(percentile(latencies, 99).toFixed(2)),
    ok,
    insufficient,
    otherErrors,
    otherSample,
  };
}

async function inParallel<T>(n: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let i = next++; i < n; i = next++) out[i] = await task(i);
    }),
  );
  return out;
}

interface DbTarget {
  label: 'PGlite' | 'PostgreSQL';
  env: () => Promise<{ env: Record<string, string>; cleanup(): Promise<void> }>;
}

async function benchDatabase(
  target: DbTarget,
  port: number,
): Promise<{ baseline: Run; distinct: Run; hot: Run }> {
  // Baseline first, on its own database, so that neither run warms the other's tables.
  const base = await target.env();
  let baseline: Run;
  let server: ServerProcess | null = null;
  try {
    server = await startServerProcess('bench/insert-baseline.server.ts', base.env, port);
    const client = new HttpClient(server.url, ADMIN_TOKEN, CONNECTIONS);
    baseline = await load((i) => client.call('POST', `/insert/card-${i % CARDS}`, {}));
    await client.close();
  } finally {
    await server?.stop();
    await base.cleanup();
  }

  const svc = await target.env();
  server = null;
  try {
    server = await startServerProcess('src/server.ts', { ...svc.env, ADMIN_TOKEN }, port + 1);
    const client = new HttpClient(server.url, ADMIN_TOKEN, CONNECTIONS);
    const who: PosIdentity = await setupTerminalHttp(client, `bench-${Date.now()}`);
    const ids = Array.from({ length: CARDS }, (_, i) => `bench-card-${i}`);
    await inParallel(CARDS, 16, async (i) => {
      const id = ids[i] ?? '';
      await client.pos(who, 'POST', `/tokens/${id}`, { query: { tokentype: 'gift' } });
      await client.add(who, id, '1000000.00');
    });
    const distinct = await load((i) => client.withdraw(who, ids[i % CARDS] ?? '', '0.01'));
    const hotId = 'bench-hot-card';
    await client.pos(who, 'POST', `/tokens/${hotId}`, { query: { tokentype: 'gift' } });
    // Enough for a part of the run only, so that both outcomes (booked and 13003) are measured.
    await client.add(who, hotId, '50.00');
    const hot = await load(() => client.withdraw(who, hotId, '0.01'));
    await client.close();
    return { baseline, distinct, hot };
  } finally {
    await server?.stop();
    await svc.cleanup();
  }
}

function pgTarget(url: string): DbTarget {
  return {
    label: 'PostgreSQL',
    env: async () => {
      const name = `punchcard_bench_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const u = new URL(url);
      u.pathname = `/${name}`;
      return {
        env: { DATABASE_URL: u.toString() },
        async cleanup() {
          const c = new pg.Client({ connectionString: url });
          await c.connect();
          await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await c.end();
        },
      };
    },
  };
}

const pgliteTarget: DbTarget = {
  label: 'PGlite',
  env: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'punchcard-bench-'));
    return {
      env: { DATA_DIR: dir, DATABASE_URL: '' },
      async cleanup() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const fmt = (r: Run) => `${r.opsPerSecond} | ${r.p50Ms} | ${r.p99Ms}`;

export async function runCardsBench(): Promise<string> {
  const targets: DbTarget[] = [pgliteTarget];
  // PostgreSQL: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the machine's own (as the other benchmarks).
  const url = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || POSTGRES_URL;
  if ((process.env.BENCH_DATABASES ?? 'pglite,postgres').includes('postgres')) targets.push(pgTarget(url));
  const lines: string[] = [
    '## Card withdrawals',
    '',
    `Command: \`npx tsx bench/cards.bench.ts\` (PostgreSQL from BENCH_DATABASE_URL or TEST_DATABASE_URL). ` +
      `Server as a child process (\`src/server.ts\`, default pool of 10), ${CONNECTIONS} keep-alive HTTP ` +
      `connections in a closed loop, ${DURATION_MS / 1000} s measured after ${WARMUP_MS / 1000} s warm-up, ` +
      `client and server on the same machine. Baseline: \`bench/insert-baseline.server.ts\`, a bare Fastify ` +
      `route doing one INSERT per request into the same kind of database.`,
    '',
    '| database | scenario | ops/s | p50 ms | p99 ms | booked | 13003 | other errors | vs baseline |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  let port = 41000 + Math.floor(Math.random() * 1000) * 2;
  for (const target of targets) {
    const r = await benchDatabase(target, port);
    port += 2;
    const pct = (x: Run) => `${Math.round((x.opsPerSecond / Math.max(1, r.baseline.opsPerSecond)) * 100)}%`;
    lines.push(
      `| ${target.label} | one-INSERT baseline | ${fmt(r.baseline)} | ${r.baseline.ok} | - | ${r.baseline.otherErrors} | 100% |`,
    );
    lines.push(
      `| ${target.label} | withdraw 0.01, ${CARDS} distinct cards | ${fmt(r.distinct)} | ${r.distinct.ok} | ${r.distinct.insufficient} | ${r.distinct.otherErrors} | ${pct(r.distinct)} |`,
    );
    lines.push(
      `| ${target.label} | withdraw 0.01, one hot card (50.00) | ${fmt(r.hot)} | ${r.hot.ok} | ${r.hot.insufficient} | ${r.hot.otherErrors} | ${pct(r.hot)} |`,
    );
    for (const [name, run] of [
      ['distinct', r.distinct],
      ['hot', r.hot],
    ] as const) {
      if (run.otherErrors > 0)
        lines.push(``, `${target.label} ${name}: first other error: ${run.otherSample}`);
    }
  }
  return lines.join('\n');
}

const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(entry).href) {
  runCardsBench()
    .then((text) => process.stdout.write(`${text}\n`))
    .catch((err: unknown) => {
      process.stderr.write(
        `cards bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    });
}
