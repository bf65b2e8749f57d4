import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { recordFigures } from './lib/history.js';
import { afterRun, ledgerVerdict } from './lib/money-check.js';
import { benchBasket, setupBenchTerminal } from './lib/setup.js';
import { type TalliedRun, tallyLoad } from './lib/tally-load.js';
import { type TurnRatios, combineTurns, turnRatios, turnsText } from './lib/turns.js';
import {
  type CpuUse,
  type Kind,
  cpuCell,
  measuredCpu,
  serviceAndBaseline,
  withTeardown,
} from './lib/server.js';

/**
 * Card withdrawals of 0.01 through HTTP, on 1,000 distinct gift cards and on one hot card, against
 * the foundation's baseline (a bare Fastify route that parses the 20-position basket body and does
 * one INSERT) measured in the same run on the same database kind, loaded in turns.
 */
const CONNECTIONS = 32;
const DURATION_SEC = Number(process.env.BENCH_DURATION_SEC ?? 10);
const ROUNDS = 5;
const CARDS = 1000;
/** What every card is funded with before the run, in minor units (1,000,000.00). */
const FUNDED = 100_000_000;

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

async function pos(baseUrl: string, path: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${baseUrl}/api/pos/v3${path}`, {
    method: 'POST',
    headers: { accept: 'application/json', ...headers },
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

export interface CardsRow {
  kind: Kind;
  baseline: TalliedRun;
  distinct: TalliedRun;
  hot: TalliedRun;
  /** CPU of the server and of its PostgreSQL backends over the measured turns, per scenario. */
  cpu: { baseline: CpuUse; distinct: CpuUse; hot: CpuUse };
  /** Each scenario's turns against the baseline's turn of the same round. */
  turns: { distinct: TurnRatios; hot: TurnRatios };
  /**
   * After the run: the withdrawals answered as booked, warm-up included (0.01 each, so in minor
   * units), those left unanswered when a turn's time was up (booked or not), what the cards'
   * balances lost against what they were funded with, and the ledger's check.
   */
  money: { withdrawn: number; unanswered: number; moved: number; ledgerViolations: number };
}

export async function runCardsRows(kinds: Kind[]): Promise<CardsRow[]> {
  const rows: CardsRow[] = [];
  const basketBody = JSON.stringify(benchBasket(20));
  for (const kind of kinds) {
    rows.push(
      await withTeardown(async (made): Promise<CardsRow> => {
        const { serviceDb, baselineDb, service, baseline } = await serviceAndBaseline(made, kind, 'cards');
        let measured: Omit<CardsRow, 'kind' | 'money'> & { warm: TalliedRun };
        try {
          const term = await setupBenchTerminal(service.baseUrl, 'bench-cards');
          const auth = { devkey: term.devKey, trackingunitid: term.trackingUnitId };
          const sign = (input: string) => md5(`${input}qPnsS14${term.checksumSecret}`);
          const ids = Array.from({ length: CARDS }, (_, i) => `bench-card-${i}`);
          for (let i = 0; i < CARDS; i += 20) {
            await Promise.all(
              ids.slice(i, i + 20).map(async (id) => {
                await pos(service.baseUrl, `/tokens/${id}?tokentype=gift`, auth);
                await pos(service.baseUrl, `/tokens/${id}/addBalance?balanceToAdd=1000000.00`, {
                  ...auth,
                  securitytoken: sign(`${id}1000000.00`),
                });
              }),
            );
          }
          const hotId = 'bench-hot-card';
          await pos(service.baseUrl, `/tokens/${hotId}?tokentype=gift`, auth);
          // Funded for the whole run: every withdrawal books, so the figure is the booking's, not the refusal's.
          await pos(service.baseUrl, `/tokens/${hotId}/addBalance?balanceToAdd=1000000.00`, {
            ...auth,
            securitytoken: sign(`${hotId}1000000.00`),
          });
          const tokens = ids.map((id) => sign(`${id}0.01`));
          const hotToken = sign(`${hotId}0.01`);
          // A withdrawal beyond the balance is refused with 13003 (not enough balance).
          const withdrawals = {
            url: service.baseUrl,
            connections: CONNECTIONS,
            headers: { accept: 'application/json', ...auth },
            isRefusal: (status: number, body: string) => status === 400 && body.includes('13003'),
          };
          const slice = Math.max(2, Math.round(DURATION_SEC / ROUNDS));
          const baselineRuns: TalliedRun[] = [];
          const distinctRuns: TalliedRun[] = [];
          const hotRuns: TalliedRun[] = [];
          const runBaseline = (prefix: string, seconds: number) =>
            tallyLoad({
              url: baseline.baseUrl,
              connections: CONNECTIONS,
              isRefusal: () => false,
              seconds,
              headers: { 'content-type': 'application/json' },
              body: basketBody,
              next: (n) => ({ path: `/baseline/${prefix}-${n}` }),
            });
          const runDistinct = (seconds: number) =>
            tallyLoad({
              ...withdrawals,
              seconds,
              next: (n) => ({
                path: `/api/pos/v3/tokens/${ids[n % CARDS]}/withdrawBalance?balanceToWithdraw=0.01`,
                headers: { securitytoken: tokens[n % CARDS] ?? '' },
              }),
            });
          await runBaseline('warm', 2);
          const warm = await runDistinct(2);
          const cpu = {
            baseline: { server: 0, database: 0 },
            distinct: { server: 0, database: 0 },
            hot: { server: 0, database: 0 },
          };
          for (let round = 0; round < ROUNDS; round++) {
            baselineRuns.push(
              await measuredCpu(baseline, baselineDb.name, cpu.baseline, () =>
                runBaseline(`r${round}`, slice),
              ),
            );
            distinctRuns.push(
              await measuredCpu(service, serviceDb.name, cpu.distinct, () => runDistinct(slice)),
            );
            hotRuns.push(
              await measuredCpu(service, serviceDb.name, cpu.hot, () =>
                tallyLoad({
                  ...withdrawals,
                  seconds: slice,
                  next: () => ({
                    path: `/api/pos/v3/tokens/${hotId}/withdrawBalance?balanceToWithdraw=0.01`,
                    headers: { securitytoken: hotToken },
                  }),
                }),
              ),
            );
          }
          measured = {
            baseline: combineTurns(baselineRuns),
            distinct: combineTurns(distinctRuns),
            hot: combineTurns(hotRuns),
            cpu,
            turns: {
              distinct: turnRatios(distinctRuns, baselineRuns),
              hot: turnRatios(hotRuns, baselineRuns),
            },
            warm,
          };
        } finally {
          await service.stop();
          await baseline.stop();
        }
        const { warm, ...row } = measured;
        const money = await afterRun(serviceDb.env, async (db) => {
          const held = await sql<{ n: string; cards: number }>`
          SELECT COALESCE(sum(a.balance_minor), 0)::text AS n, count(*)::int AS cards
            FROM cards c JOIN ledger_accounts a ON a.id = c.account_id`.execute(db);
          const found = held.rows[0];
          return {
            withdrawn: warm.ok + row.distinct.ok + row.hot.ok,
            unanswered: warm.unanswered + row.distinct.unanswered + row.hot.unanswered,
            moved: (found?.cards ?? 0) * FUNDED - Number(found?.n ?? 0),
          };
        });
        return { kind, ...row, money };
      }),
    );
  }
  return rows;
}

const f = (n: number, d = 0) => n.toFixed(d);

export function cardsTable(rows: CardsRow[]): string {
  const lines = [
    '| database | scenario | ops/s | p50 ms | p99 ms | booked | 13003 | other errors | CPU ms/request (server + PostgreSQL) | throughput vs baseline (median of turns) |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const line = (
      name: string,
      x: TalliedRun,
      booked: string,
      insufficient: string,
      cpu: CpuUse,
      t?: TurnRatios,
    ) =>
      `| ${r.kind} | ${name} | ${f(x.requestsPerSec)} | ${f(x.p50Ms, 1)} | ${f(x.p99Ms, 1)} | ${booked} | ${insufficient} | ${x.other} | ${cpuCell(cpu, x.total)} | ${t ? f(t.medianThroughput, 2) : '1.00'} |`;
    lines.push(line('baseline (parse basket + 1 INSERT)', r.baseline, '-', '-', r.cpu.baseline));
    lines.push(
      line(
        `withdraw 0.01, ${CARDS} distinct cards`,
        r.distinct,
        String(r.distinct.ok),
        String(r.distinct.refused),
        r.cpu.distinct,
        r.turns.distinct,
      ),
    );
    lines.push(
      line(
        'withdraw 0.01, one hot card (funded for the run)',
        r.hot,
        String(r.hot.ok),
        String(r.hot.refused),
        r.cpu.hot,
        r.turns.hot,
      ),
    );
  }
  for (const r of rows) {
    const { withdrawn, unanswered, moved, ledgerViolations } = r.money;
    const exact = moved >= withdrawn && moved <= withdrawn + unanswered;
    lines.push(
      '',
      `${r.kind}, turn by turn against the baseline's turn of the same round: distinct cards ` +
        `${turnsText(r.turns.distinct)}; one hot card ${turnsText(r.turns.hot)}.`,
      '',
      `${r.kind}: the withdrawals answered as booked took ${withdrawn} (minor units, warm-up included) and ` +
        `${unanswered} were in flight when a turn's time was up; the cards' balances lost ${moved} ` +
        `(${exact ? `exact: the answered ones and ${moved - withdrawn} of those in flight` : 'NOT EXACT'}); ` +
        ledgerVerdict(ledgerViolations),
    );
  }
  return lines.join('\n');
}

export async function runCardsBench(kinds: Kind[]): Promise<string> {
  const rows = await runCardsRows(kinds);
  const pg = rows.find((r) => r.kind === 'postgres');
  if (pg !== undefined) {
    recordFigures([
      { row: 'cards_distinct', figure: pg.turns.distinct.medianThroughput },
      { row: 'cards_hot', figure: pg.turns.hot.medianThroughput },
    ]);
  }
  return [
    '## Card withdrawals',
    '',
    `Command: \`npm run bench -- cards\`. Withdrawals of 0.01 with SecurityToken over HTTP, 32 connections,`,
    `${DURATION_SEC} s per scenario in five turns alternating with the foundation's one-INSERT baseline (the`,
    '20-position basket body parsed and inserted), on the same kind of database. Targets on PostgreSQL: at',
    'least 1.0 of the baseline on distinct cards and 0.8 on one hot card funded for the whole run, no error.',
    "Each ratio is the median of the five turns' ratios, a turn against the baseline's turn just before it.",
    "After the run the money is checked on the database: the cards' balances lost what the withdrawals",
    'answered as booked took, and at most one unit more for each request in flight when a turn ended;',
    "the ledger's own check (`npm run ledger:verify`'s) finds nothing.",
    '',
    cardsTable(rows),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const kinds = (process.argv[2] ?? 'pglite,postgres').split(',') as Kind[];
  console.log(cardsTable(await runCardsRows(kinds)));
}
