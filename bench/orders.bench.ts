import { createHmac, randomUUID } from 'node:crypto';
import { HttpClient } from '../test/support/http-pos.js';
import {
  type CheckoutIdentity,
  coffeeOrder,
  fundedProfile,
  setupCheckoutHttp,
} from '../test/support/http-checkout.js';
import {
  BENCH_ADMIN_TOKEN,
  type CpuUse,
  type Kind,
  cpuCell,
  freshDatabase,
  measuredCpu,
  startProcess,
  startService,
} from './lib/server.js';
import { type LoadRequest, type TalliedRun, sumRuns, tallyLoad } from './lib/tally-load.js';

/**
 * Checkout orders paid from the balance (POST /api/v1/orders, signed, with Idempotency-Key) over
 * HTTP, on distinct funded profiles and on one hot profile, against the one-INSERT baseline (a
 * bare Fastify route that parses the same order body and does one INSERT) measured in the same
 * run on the same database, loaded in turns.
 */
const CONNECTIONS = 32;
const DURATION_SEC = Number(process.env.BENCH_DURATION_SEC ?? 10);
const ROUNDS = 5;
const PROFILES = 200;

function signed(who: CheckoutIdentity, body: string): Record<string, string> {
  const key = randomUUID();
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', who.securitySecret)
    .update(`${timestamp}\n${key}\n`)
    .update(Buffer.from(body, 'utf8'))
    .digest('hex');
  return {
    authorization: `Token ${who.accessToken}`,
    'idempotency-key': key,
    timestamp,
    'security-token': signature,
  };
}

/** Requests a turn is expected to need at most per second (more are made while it runs). */
const PREPARED_PER_SEC = 8000;

/**
 * The requests of a turn, made before it starts: the load generator shares the two cores with the
 * service, and making a request (a new basketId and Idempotency-Key, the JSON body, the signature)
 * is the client's work, which should not take CPU from the service while it is measured. A turn
 * that needs more than were made makes the rest as it goes.
 */
function prepared(seconds: number, make: (n: number) => LoadRequest): (n: number) => LoadRequest {
  const list = Array.from({ length: seconds * PREPARED_PER_SEC }, (_, n) => make(n));
  return (n) => list[n] ?? make(n);
}

export interface OrdersRow {
  kind: Kind;
  baseline: TalliedRun;
  distinct: TalliedRun;
  hot: TalliedRun;
  /** CPU time over the measured turns: the server process, and the PostgreSQL backends. */
  cpu: { baseline: CpuUse; distinct: CpuUse; hot: CpuUse };
}

export async function runOrdersRows(kinds: Kind[]): Promise<OrdersRow[]> {
  const rows: OrdersRow[] = [];
  for (const kind of kinds) {
    const serviceDb = await freshDatabase(kind, 'orders');
    const baselineDb = await freshDatabase(kind, 'ordersbase');
    const service = await startService({ ...serviceDb.env, DATABASE_POOL_SIZE: '32' });
    const baseline = await startProcess(['--import', 'tsx', 'bench/baseline-server.ts'], {
      ...baselineDb.env,
      DATABASE_POOL_SIZE: '32',
    });
    const client = new HttpClient(service.baseUrl, BENCH_ADMIN_TOKEN, 20);
    try {
      const who = await setupCheckoutHttp(client, `bench-orders-${Date.now()}`);
      const cards: string[] = [];
      for (let i = 0; i < PROFILES; i += 20) {
        cards.push(
          ...(await Promise.all(Array.from({ length: 20 }, () => fundedProfile(client, who, 100_000_000)))),
        );
      }
      // Enough for a part of the run only, so that both outcomes (charged, insufficient) are measured.
      const hot = await fundedProfile(client, who, 50_000);
      const slice = Math.max(2, Math.round(DURATION_SEC / ROUNDS));
      const orderOf = (card: string) => {
        const body = JSON.stringify(coffeeOrder(who, card, 1));
        return { path: '/api/v1/orders', body, headers: signed(who, body) };
      };
      const baselineBody = JSON.stringify(coffeeOrder(who, cards[0] ?? '', 1));
      const json = {
        connections: CONNECTIONS,
        headers: { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
      };
      const orders = (seconds: number, make: (n: number) => LoadRequest) =>
        tallyLoad({
          ...json,
          url: service.baseUrl,
          seconds,
          next: prepared(seconds, make),
          isRefusal: (status, body) => status === 422 && body.includes('insufficient_balance'),
        });
      const runBaseline = (prefix: string, seconds: number) =>
        tallyLoad({
          ...json,
          url: baseline.baseUrl,
          seconds,
          next: prepared(seconds, (n) => ({ path: `/baseline/${prefix}-${n}`, body: baselineBody })),
          isRefusal: () => false,
        });
      const runDistinct = (seconds: number) => orders(seconds, (n) => orderOf(cards[n % PROFILES] ?? ''));
      await runBaseline('warm', 2);
      await runDistinct(2);
      const b: TalliedRun[] = [];
      const d: TalliedRun[] = [];
      const h: TalliedRun[] = [];
      const cpu = {
        baseline: { server: 0, database: 0 },
        distinct: { server: 0, database: 0 },
        hot: { server: 0, database: 0 },
      };
      for (let round = 0; round < ROUNDS; round++) {
        b.push(
          await measuredCpu(baseline, baselineDb.name, cpu.baseline, () => runBaseline(`r${round}`, slice)),
        );
        d.push(await measuredCpu(service, serviceDb.name, cpu.distinct, () => runDistinct(slice)));
        h.push(await measuredCpu(service, serviceDb.name, cpu.hot, () => orders(slice, () => orderOf(hot))));
      }
      rows.push({ kind, baseline: sumRuns(b), distinct: sumRuns(d), hot: sumRuns(h), cpu });
    } finally {
      await client.close();
      await service.stop();
      await baseline.stop();
      await serviceDb.drop();
      await baselineDb.drop();
    }
  }
  return rows;
}

const f = (n: number, d = 0) => n.toFixed(d);

export function ordersTable(rows: OrdersRow[]): string {
  const lines = [
    '| database | scenario | req/s | p50 ms | p99 ms | charged | insufficient_balance | other errors | CPU ms/request (server + PostgreSQL) | throughput vs baseline | p99 vs baseline |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const line = (name: string, x: TalliedRun, cpu: CpuUse, ok: string, insufficient: string) =>
      `| ${r.kind} | ${name} | ${f(x.requestsPerSec)} | ${f(x.p50Ms, 1)} | ${f(x.p99Ms, 1)} | ${ok} | ${insufficient} | ${x.other} | ${cpuCell(cpu, x.total)} | ${f(x.requestsPerSec / r.baseline.requestsPerSec, 2)} | ${f(x.p99Ms / r.baseline.p99Ms, 2)} |`;
    lines.push(line('baseline (parse order + 1 INSERT)', r.baseline, r.cpu.baseline, '-', '-'));
    lines.push(
      line(
        `order 1.00 from balance, ${PROFILES} profiles`,
        r.distinct,
        r.cpu.distinct,
        String(r.distinct.ok),
        String(r.distinct.refused),
      ),
    );
    lines.push(
      line(
        'order 1.00 from balance, one hot profile (500.00)',
        r.hot,
        r.cpu.hot,
        String(r.hot.ok),
        String(r.hot.refused),
      ),
    );
  }
  return lines.join('\n');
}

export async function runOrdersBench(kinds: Kind[]): Promise<string> {
  const rows = await runOrdersRows(kinds);
  return [
    '## Checkout orders paid from the balance',
    '',
    '`npm run bench -- orders`: signed orders (Security-Token, Idempotency-Key) of one article priced from',
    `the menu and charged to the profile balance, over HTTP, ${CONNECTIONS} connections, ${DURATION_SEC} s per scenario in`,
    'five turns alternating with the one-INSERT baseline (the same order body parsed and inserted), on the',
    'same database; pools of 32 connections; the requests of each turn made and signed before it starts.',
    'Targets on PostgreSQL: at least 0.70 of the baseline throughput',
    'and p99 at most 2x on distinct profiles; on the hot profile no error other than insufficient_balance.',
    '',
    ordersTable(rows),
  ].join('\n');
}
