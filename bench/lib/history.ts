import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * The rows of docs/performance.md's targets, machine by machine: each benchmark run on PostgreSQL
 * adds its figures to docs/performance-history.csv and draws the chart again
 * (`npm run docs:performance-chart`, docs/performance-history.png). The test suite's times are
 * added by hand, as they come from fresh clones' `.ci/run`, not from a benchmark.
 */
export type HistoryRow =
  | 'orders_one'
  | 'orders_six'
  | 'upload'
  | 'engine'
  | 'cards_distinct'
  | 'cards_hot'
  | 'sortiment_first_s'
  | 'sortiment_change_s'
  | 'sortiment_rss_mib';

const CSV = 'docs/performance-history.csv';

/** The machine as the CSV names it: BENCH_MACHINE (e.g. the machine's ordinal), else its host name. */
function machineName(): string {
  return (process.env.BENCH_MACHINE ?? hostname()).replace(/[,\s]+/g, '-');
}

/** Adds one run's figures (each row's figure as its table reports it) and draws the chart again. */
export function recordFigures(
  figures: readonly { row: HistoryRow; figure: number }[],
  nowMs = Date.now(),
): void {
  const kept = figures.filter((f) => Number.isFinite(f.figure));
  if (kept.length === 0 || !existsSync(CSV)) return;
  const at = `${new Date(nowMs).toISOString().slice(0, 16)}Z`;
  const machine = machineName();
  appendFileSync(
    CSV,
    kept.map((f) => `${f.row},${at},${machine},${Number(f.figure.toFixed(3))},run\n`).join(''),
  );
  console.log(`${CSV}: ${kept.map((f) => `${f.row} ${f.figure.toFixed(2)}`).join(', ')} added`);
  try {
    execFileSync('npx', ['tsx', 'scripts/performance-chart.ts'], { stdio: 'inherit' });
  } catch {
    // The figures are kept; the chart waits for a machine with Chromium.
    console.log(
      'the chart was not drawn again (Chromium missing?): `npm run docs:performance-chart` draws it',
    );
  }
}
