import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../bench/lib/load.js';
import type { TalliedRun } from '../../bench/lib/tally-load.js';
import { combineTurns, turnRatios } from '../../bench/lib/turns.js';

/**
 * The benchmarks' figures (docs/performance.md): a scenario's turns give one row, rates and
 * latencies averaged and every count added, and its ratio against the baseline is the median of
 * the turns' ratios, each turn against the baseline's turn of the same round.
 */
describe('the turns of a benchmark', () => {
  it('a load of uploads: rate and latencies averaged over the turns, requests, refusals and errors added', () => {
    const turn = (rate: number, p99: number, total: number, non2xx: number): LoadResult => ({
      requestsPerSec: rate,
      p50Ms: p99 / 4,
      p99Ms: p99,
      total,
      non2xx,
      errors: 1,
      started: total + 2,
    });
    expect(combineTurns([turn(1000, 8, 5000, 0), turn(3000, 16, 15000, 3)])).toEqual({
      requestsPerSec: 2000,
      p50Ms: 3,
      p99Ms: 12,
      total: 20000,
      non2xx: 3,
      errors: 2,
      started: 20004,
    });
  });

  it('a tallied load of withdrawals: the answers of every kind and the unanswered requests added', () => {
    const turn = (ok: number, refused: number, unanswered: number): TalliedRun => ({
      requestsPerSec: ok / 5,
      p50Ms: 2,
      p99Ms: 9,
      total: ok + refused,
      ok,
      refused,
      other: 0,
      unanswered,
    });
    expect(combineTurns([turn(500, 10, 3), turn(700, 0, 1), turn(600, 5, 0)])).toEqual({
      requestsPerSec: 120,
      p50Ms: 2,
      p99Ms: 9,
      total: 1815,
      ok: 1800,
      refused: 15,
      other: 0,
      unanswered: 4,
    });
  });

  it("the ratio against the baseline is the median of the rounds' ratios, not the ratio of the means", () => {
    const at = (rate: number) => ({ requestsPerSec: rate, p99Ms: 10 });
    const ratios = turnRatios([at(100), at(90), at(400)], [at(100), at(100), at(100)]);
    expect(ratios.throughput).toEqual([1, 0.9, 4]);
    expect(ratios.medianThroughput).toBe(1);
  });
});
