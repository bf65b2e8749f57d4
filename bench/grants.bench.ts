import { createHash } from 'node:crypto';
import { SMTPServer } from 'smtp-server';
import type { LoadResult } from './lib/load.js';
import { combineTurns } from './lib/turns.js';
import { admin, benchBasket, setupBenchTerminal } from './lib/setup.js';
import {
  type CpuUse,
  type Kind,
  cpuCell,
  measuredCpu,
  startService,
  serviceAndBaseline,
  withTeardown,
} from './lib/server.js';

const CONNECTIONS = 16;
/** Grants per turn: each needs a basket uploaded before the turn (not measured). */
const PER_TURN = Number(process.env.BENCH_GRANTS_PER_TURN ?? 1000);
const TURNS = 3;
/** Customer cards of the merchant with a loyalty scheme, used in turn. */
const POINTS_CARDS = 100;

export interface GrantBenchRow {
  kind: Kind;
  service: LoadResult;
  /** Grants that book points: a merchant with a loyalty scheme, baskets of 100 customer cards. */
  points: LoadResult;
  baseline: LoadResult;
  /** CPU of the server and of its PostgreSQL backends over the measured turns (per route). */
  cpu: { service: CpuUse; points: CpuUse; baseline: CpuUse };
  /** The dispatcher draining the queued notifications to a local SMTP server. */
  drain: { mails: number; seconds: number };
}

/** An SMTP server in this process that counts what it accepts. */
async function countingSmtp(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        count += 1;
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    count: () => count,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Restarts the service with its dispatcher on and measures how fast it sends the queued mails. */
async function drain(
  env: Record<string, string>,
  expected: number,
): Promise<{ mails: number; seconds: number }> {
  const smtp = await countingSmtp();
  const started = performance.now();
  const service = await startService({ ...env, SMTP_URL: smtp.url, OUTBOX_POLL_MS: '50' });
  try {
    const deadline = started + 120_000;
    while (smtp.count() < expected && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    return { mails: smtp.count(), seconds: (performance.now() - started) / 1000 };
  } finally {
    await service.stop();
    await smtp.close();
  }
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/**
 * `amount` requests over CONNECTIONS concurrent workers (keep-alive fetch), each request built
 * from its number; throughput and latency percentiles of the whole run.
 */
async function run(options: {
  url: string;
  amount: number;
  request: (n: number) => { path: string; headers: Record<string, string>; body: string };
}): Promise<LoadResult> {
  let next = 0;
  let non2xx = 0;
  let errors = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      next += 1;
      const n = next;
      if (n > options.amount) return;
      const r = options.request(n);
      const t0 = performance.now();
      try {
        const res = await fetch(`${options.url}${r.path}`, {
          method: 'POST',
          headers: r.headers,
          ...(r.body === '' ? {} : { body: r.body }),
        });
        await res.arrayBuffer();
        if (res.status < 200 || res.status > 299) non2xx += 1;
      } catch {
        errors += 1;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requestsPerSec: options.amount / seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    total: options.amount,
    non2xx,
    errors,
    started: options.amount,
  };
}

/**
 * Basket grant with a purchase notification queued (a customer card linked to a profile with an
 * e-mail: the grant books points, writes the receipt and the outbox message in its transaction)
 * against the one-INSERT baseline, in turns. The dispatcher is off in the service
 * (OUTBOX_DISABLED) so that the figure is the grant's own; the baskets are uploaded before
 * each turn.
 */
export async function runGrantBench(kinds: Kind[]): Promise<GrantBenchRow[]> {
  const rows: GrantBenchRow[] = [];
  for (const kind of kinds) {
    rows.push(
      await withTeardown(async (made): Promise<GrantBenchRow> => {
        const { serviceDb, baselineDb, service, baseline } = await serviceAndBaseline(made, kind, 'grants', {
          service: { OUTBOX_DISABLED: 'true' },
        });
        const term = await setupBenchTerminal(service.baseUrl, 'grant-bench');
        const profile = (await admin(service.baseUrl, 'POST', `/merchants/grant-bench/profiles`, {
          fullName: 'Bench Consumer',
          email: 'bench@example.org',
          language: 'en',
        })) as { id: number };
        await admin(service.baseUrl, 'POST', `/profiles/${profile.id}/tokens`, {
          tokenId: 'bench-card',
          tokenType: 0,
        });
        const pos = {
          'content-type': 'application/json',
          accept: 'application/json',
          devkey: term.devKey,
          trackingunitid: term.trackingUnitId,
        };
        const body = JSON.stringify(benchBasket(20));
        // A second merchant whose grants book points: 1 point per 1.00, 5.00 off the bill at 100
        // points, so that each 20-position basket earns points and redeems the reward.
        const pointsTerm = await setupBenchTerminal(service.baseUrl, 'grant-bench-points');
        await admin(service.baseUrl, 'POST', '/merchants/grant-bench-points/loyaltySchemes', {
          name: 'Points',
          earn: [{ per: 'amount', amount: 1, points: 1 }],
          pointsExpireAfterDays: 365,
          reward: { threshold: 100, type: 'bill', discount: { amount: 5 } },
        });
        const pointsPos = { ...pos, devkey: pointsTerm.devKey, trackingunitid: pointsTerm.trackingUnitId };
        for (let c = 0; c < POINTS_CARDS; c++) {
          const res = await fetch(`${service.baseUrl}/api/pos/v3/tokens/points-card-${c}?tokentype=0`, {
            method: 'POST',
            headers: {
              accept: 'application/json',
              devkey: pointsTerm.devKey,
              trackingunitid: pointsTerm.trackingUnitId,
            },
          });
          if (!res.ok) throw new Error(`card: ${res.status} ${await res.text()}`);
        }
        const upload = (prefix: string, count: number, points = false) =>
          run({
            url: service.baseUrl,
            amount: count,
            request: (n) => ({
              path: points
                ? `/api/pos/v3/baskets/${prefix}-${n}?consumerIdentToken=points-card-${n % POINTS_CARDS}`
                : `/api/pos/v3/baskets/${prefix}-${n}?consumerIdentToken=bench-card`,
              headers: points ? pointsPos : pos,
              body,
            }),
          });
        const grant = (prefix: string, count: number, points = false) =>
          run({
            url: service.baseUrl,
            amount: count,
            request: (n) => ({
              path: `/api/pos/v3/baskets/${prefix}-${n}/grant`,
              headers: {
                ...(points ? pointsPos : pos),
                securitytoken: md5(`${prefix}-${n}qPnsS14${(points ? pointsTerm : term).checksumSecret}`),
              },
              body: '',
            }),
          });
        const insert = (prefix: string, count: number) =>
          run({
            url: baseline.baseUrl,
            amount: count,
            request: (n) => ({
              path: `/baseline/${prefix}-${n}`,
              headers: { 'content-type': 'application/json' },
              body: '{"Granted":true}',
            }),
          });
        // Warm-up.
        console.log(`grants on ${kind}: warm-up`);
        await upload('warm', 300);
        await grant('warm', 300);
        await upload('warm', 300, true);
        await grant('warm', 300, true);
        await insert('warm', 300);
        const serviceRuns: LoadResult[] = [];
        const pointsRuns: LoadResult[] = [];
        const baselineRuns: LoadResult[] = [];
        const cpu = {
          service: { server: 0, database: 0 },
          points: { server: 0, database: 0 },
          baseline: { server: 0, database: 0 },
        };
        for (let turn = 0; turn < TURNS; turn++) {
          console.log(`grants on ${kind}: turn ${turn + 1} of ${TURNS}`);
          for (const points of [false, true]) {
            const uploaded = await upload(`t${turn}`, PER_TURN, points);
            if (uploaded.non2xx > 0) throw new Error(`upload: ${uploaded.non2xx} non-2xx`);
          }
          baselineRuns.push(
            await measuredCpu(baseline, baselineDb.name, cpu.baseline, () => insert(`t${turn}`, PER_TURN)),
          );
          serviceRuns.push(
            await measuredCpu(service, serviceDb.name, cpu.service, () => grant(`t${turn}`, PER_TURN)),
          );
          pointsRuns.push(
            await measuredCpu(service, serviceDb.name, cpu.points, () => grant(`t${turn}`, PER_TURN, true)),
          );
        }
        const s = combineTurns(serviceRuns);
        const p = combineTurns(pointsRuns);
        for (const [what, r] of [
          ['grant', s],
          ['grant with points', p],
        ] as const) {
          if (r.non2xx > 0 || r.errors > 0)
            throw new Error(`${what} on ${kind}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        }
        await service.stop();
        // The points merchant's cards are not linked to profiles: only the first merchant's grants notify.
        const drained = await drain(serviceDb.env, 300 + TURNS * PER_TURN);
        await baseline.stop();
        return { kind, service: s, points: p, baseline: combineTurns(baselineRuns), cpu, drain: drained };
      }),
    );
  }
  return rows;
}

const f = (n: number, d = 0) => n.toFixed(d);

export function grantTable(rows: GrantBenchRow[]): string {
  const lines = [
    '| database | route | requests/s | p50 ms | p99 ms | CPU ms/request (server + PostgreSQL) | throughput vs baseline |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.kind} | baseline (1 INSERT) | ${f(r.baseline.requestsPerSec)} | ${f(r.baseline.p50Ms, 1)} | ${f(r.baseline.p99Ms, 1)} | ${cpuCell(r.cpu.baseline, TURNS * PER_TURN)} | 1.00 |`,
    );
    lines.push(
      `| ${r.kind} | grant + receipt + notification queued | ${f(r.service.requestsPerSec)} | ${f(r.service.p50Ms, 1)} | ${f(r.service.p99Ms, 1)} | ${cpuCell(r.cpu.service, TURNS * PER_TURN)} | ${f(r.service.requestsPerSec / r.baseline.requestsPerSec, 2)} |`,
    );
    lines.push(
      `| ${r.kind} | grant + points earned and redeemed + receipt | ${f(r.points.requestsPerSec)} | ${f(r.points.p50Ms, 1)} | ${f(r.points.p99Ms, 1)} | ${cpuCell(r.cpu.points, TURNS * PER_TURN)} | ${f(r.points.requestsPerSec / r.baseline.requestsPerSec, 2)} |`,
    );
  }
  lines.push('');
  for (const r of rows) {
    lines.push(
      `Dispatcher on ${r.kind}: ${r.drain.mails} queued purchase mails sent to a local SMTP server in ` +
        `${f(r.drain.seconds, 1)} s including the server's start: ${f(r.drain.mails / r.drain.seconds, 0)} mails/s sustained.`,
    );
  }
  return lines.join('\n');
}
