/** What a turn of load gives that is set against the baseline's turn. */
export interface Turn {
  readonly requestsPerSec: number;
  readonly p99Ms: number;
}

/**
 * A scenario's turns against the baseline's, turn for turn (each baseline turn is taken just before
 * the scenario's of the same round, so that a noisy neighbour hurts both alike): the throughput's
 * and the p99's ratios per round, and their medians, which are the benchmark's figures.
 */
export interface TurnRatios {
  readonly throughput: readonly number[];
  readonly p99: readonly number[];
  readonly medianThroughput: number;
  readonly medianP99: number;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function turnRatios(scenario: readonly Turn[], baseline: readonly Turn[]): TurnRatios {
  if (scenario.length !== baseline.length) throw new Error('a scenario and its baseline need as many turns');
  const throughput = scenario.map(
    (t, i) => t.requestsPerSec / Math.max(baseline[i]?.requestsPerSec ?? 0, 1e-9),
  );
  const p99 = scenario.map((t, i) => t.p99Ms / Math.max(baseline[i]?.p99Ms ?? 0, 0.001));
  return { throughput, p99, medianThroughput: median(throughput), medianP99: median(p99) };
}

/** "0.61, 0.58, 0.64, 0.60, 0.63 (p99 1.52, ...)": the rounds of a scenario, for the line under its table. */
export function turnsText(t: TurnRatios): string {
  const list = (xs: readonly number[]) => xs.map((x) => x.toFixed(2)).join(', ');
  return `${list(t.throughput)} (p99 ${list(t.p99)})`;
}

/** What every load's result has: a rate and latencies, which turns average; the rest are counts. */
const AVERAGED = ['requestsPerSec', 'p50Ms', 'p99Ms'] as const;

/**
 * Turns of one load as one figure: the rate and latencies averaged, every count added (requests
 * made, answered, refused, ...), whatever counts the kind of load keeps.
 */
export function combineTurns<T extends Turn & { readonly p50Ms: number } & Record<keyof T, number>>(
  runs: readonly T[],
): T {
  const out: Record<string, number> = {};
  for (const run of runs)
    for (const [key, value] of Object.entries(run) as [string, number][]) out[key] = (out[key] ?? 0) + value;
  for (const key of AVERAGED) out[key] = (out[key] ?? 0) / runs.length;
  return out as unknown as T;
}
