import { sql } from 'kysely';
import { type LoadResult, load } from './lib/load.js';
import { afterRun, ledgerVerdict } from './lib/money-check.js';
import { type TurnRatios, combineTurns, turnRatios, turnsText } from './lib/turns.js';
import { type BenchTerminal, benchBasket, setupBenchTerminal } from './lib/setup.js';
import { type Kind, measuredCpu, serviceAndBaseline, withTeardown } from './lib/server.js';
import { type WriteBatches, batchesBetween, batchesText, writeBatches } from './lib/write-batches.js';

const CONNECTIONS = 32;
const DURATION_SEC = Number(process.env.BENCH_DURATION_SEC ?? 10);
const WARMUP_SEC = 3;
/** The measured time is cut into this many turns of each server. */
const ROUNDS = 5;

export interface BasketBenchRow {
  kind: Kind;
  /** CPU milliseconds per request: the server process, and the PostgreSQL backends. */
  serviceCpu: { server: number; database: number };
  baselineCpu: { server: number; database: number };
  service: LoadResult;
  baseline: LoadResult;
  serviceRssMiB: number;
  baselineRssMiB: number;
  /** The upload's turns against the baseline's turn of the same round. */
  turns: TurnRatios;
  /** The upload writer's batches in the upload's turns, from the service's /metrics. */
  batches: WriteBatches;
  /**
   * After the run: the uploads answered 2xx and the uploads made (warm-up included; those in flight
   * when a turn's time was up are stored or not), the baskets stored, and the ledger's check.
   */
  stored: { answered: number; started: number; baskets: number; ledgerViolations: number };
}

/**
 * Basket upload (20 positions, JSON, 32 connections) against the one-INSERT baseline, on each
 * database, in the same run. The two servers run side by side and are loaded in turns
 * (baseline, service, baseline, service, ...), so that a noisy neighbour hurts both alike.
 * `prepare` sets the merchant up further (campaigns).
 */
export async function runBasketBench(
  kinds: Kind[],
  prepare?: (baseUrl: string, term: BenchTerminal) => Promise<void>,
): Promise<BasketBenchRow[]> {
  const body = JSON.stringify(benchBasket(20));
  const rows: BasketBenchRow[] = [];
  for (const kind of kinds) {
    rows.push(
      await withTeardown(async (made): Promise<BasketBenchRow> => {
        const { serviceDb, baselineDb, service, baseline } = await serviceAndBaseline(made, kind, 'baskets');
        let measured: Omit<BasketBenchRow, 'kind' | 'stored'> & { answered: number; started: number };
        try {
          const term = await setupBenchTerminal(service.baseUrl);
          if (prepare) await prepare(service.baseUrl, term);
          const serviceHeaders = {
            'content-type': 'application/json',
            accept: 'application/json',
            devkey: term.devKey,
            trackingunitid: term.trackingUnitId,
          };
          const runService = (prefix: string, seconds: number) =>
            load({
              url: service.baseUrl,
              headers: serviceHeaders,
              body,
              connections: CONNECTIONS,
              durationSec: seconds,
              path: (n) => `/api/pos/v3/baskets/${prefix}-${n}`,
            });
          const runBaseline = (prefix: string, seconds: number) =>
            load({
              url: baseline.baseUrl,
              headers: { 'content-type': 'application/json' },
              body,
              connections: CONNECTIONS,
              durationSec: seconds,
              path: (n) => `/baseline/${prefix}-${n}`,
            });
          await runBaseline('warm', WARMUP_SEC);
          const warm = await runService('warm', WARMUP_SEC);
          service.resetPeak();
          baseline.resetPeak();
          const serviceRuns: LoadResult[] = [];
          const baselineRuns: LoadResult[] = [];
          const serviceCpu = { server: 0, database: 0 };
          const baselineCpu = { server: 0, database: 0 };
          const slice = Math.max(2, Math.round(DURATION_SEC / ROUNDS));
          const batchesBefore = await writeBatches(service.baseUrl, 'basket_uploads');
          for (let round = 0; round < ROUNDS; round++) {
            baselineRuns.push(
              await measuredCpu(baseline, baselineDb.name, baselineCpu, () =>
                runBaseline(`r${round}`, slice),
              ),
            );
            serviceRuns.push(
              await measuredCpu(service, serviceDb.name, serviceCpu, () => runService(`r${round}`, slice)),
            );
          }
          const batches = batchesBetween(
            batchesBefore,
            await writeBatches(service.baseUrl, 'basket_uploads'),
          );
          const s = combineTurns(serviceRuns);
          if (s.non2xx > 0 || s.errors > 0) {
            throw new Error(`basket upload on ${kind}: ${s.non2xx} non-2xx, ${s.errors} errors`);
          }
          const b = combineTurns(baselineRuns);
          const perRequest = (c: { server: number; database: number }, total: number) => ({
            server: c.server / Math.max(total, 1),
            database: c.database / Math.max(total, 1),
          });
          measured = {
            service: s,
            baseline: b,
            serviceCpu: perRequest(serviceCpu, s.total),
            baselineCpu: perRequest(baselineCpu, b.total),
            serviceRssMiB: service.peakRssMiB(),
            baselineRssMiB: baseline.peakRssMiB(),
            turns: turnRatios(serviceRuns, baselineRuns),
            batches,
            answered: [warm, ...serviceRuns].reduce((sum, r) => sum + r.total - r.non2xx, 0),
            started: [warm, ...serviceRuns].reduce((sum, r) => sum + r.started, 0),
          };
        } finally {
          await service.stop();
          await baseline.stop();
        }
        const { answered, started, ...row } = measured;
        const stored = await afterRun(serviceDb.env, async (db) => {
          const found = await sql<{ n: number }>`SELECT count(*)::int AS n FROM baskets`.execute(db);
          return { answered, started, baskets: found.rows[0]?.n ?? 0 };
        });
        return { kind, ...row, stored };
      }),
    );
  }
  return rows;
}

const f = (n: number, d = 0) => n.toFixed(d);
const cpu = (c: { server: number; database: number }) =>
  c.database > 0 ? `${f(c.server, 3)} + ${f(c.database, 3)}` : f(c.server, 3);

export function basketTable(rows: BasketBenchRow[]): string {
  const lines = [
    '| database | route | requests/s | p50 ms | p99 ms | peak RSS MiB | CPU ms/request (server + PostgreSQL) | throughput vs baseline (median of turns) | p99 vs baseline (median of turns) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.kind} | baseline (parse + 1 INSERT) | ${f(r.baseline.requestsPerSec)} | ${f(r.baseline.p50Ms, 1)} | ${f(r.baseline.p99Ms, 1)} | ${f(r.baselineRssMiB)} | ${cpu(r.baselineCpu)} | 1.00 | 1.00 |`,
    );
    lines.push(
      `| ${r.kind} | basket upload | ${f(r.service.requestsPerSec)} | ${f(r.service.p50Ms, 1)} | ${f(r.service.p99Ms, 1)} | ${f(r.serviceRssMiB)} | ${cpu(r.serviceCpu)} | ` +
        `${f(r.turns.medianThroughput, 2)} | ${f(r.turns.medianP99, 2)} |`,
    );
  }
  for (const r of rows) {
    const { answered, started, baskets, ledgerViolations } = r.stored;
    const exact = baskets >= answered && baskets <= started;
    lines.push(
      '',
      `${r.kind}, turn by turn against the baseline's turn of the same round: ${turnsText(r.turns)}.`,
      '',
      `${r.kind}, the upload writer in the upload's turns (the service's /metrics): ${batchesText('uploads', r.batches)}.`,
      '',
      `${r.kind}: ${answered} uploads answered 2xx of ${started} made (warm-up included; the rest in flight ` +
        `when a turn's time was up), ${baskets} baskets stored (${exact ? 'every answered upload stored, none twice' : 'NOT EXACT'}); ` +
        ledgerVerdict(ledgerViolations),
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const kinds = (process.argv[2] ?? 'pglite,postgres').split(',') as Kind[];
  const rows = await runBasketBench(kinds);
  console.log(basketTable(rows));
}
