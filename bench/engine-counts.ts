/**
 * A fixed amount of the engine benchmark's work, for instruction and cache-miss counts (which,
 * unlike time, do not depend on the machine's load): builds the benchmark's campaigns at one size
 * (stacking off), evaluates `warm` baskets of its pool, then `count` more.
 *
 *     npx esbuild bench/engine-counts.ts --bundle --platform=node --format=esm --outfile=/tmp/engine-counts.mjs
 *     valgrind --tool=cachegrind --cache-sim=yes node --single-threaded /tmp/engine-counts.mjs 10000 4000 12000
 *
 * The difference between runs with `count` 12,000 and 4,000 (the same 4,000 warming up) leaves
 * start-up and the index build out: divided by 8,000 it is the cost of one basket.
 */
import { buildCampaignIndex } from '../src/engine/campaign-index.js';
import { evaluateBasket } from '../src/engine/evaluate.js';
import type { EngineBasket } from '../src/engine/types.js';
import { baskets, campaigns, CONSUMER, mulberry32, SCHEMES, sortiment } from './engine.bench.js';

const [size = 10000, warm = 4000, count = 12000] = process.argv.slice(2).map(Number);
const rand = mulberry32(20260302);
const articles = sortiment(rand);
const pool = baskets(articles, rand);
// The benchmark draws each size's campaigns from one generator in turn (100, 1,000, 10,000).
let list = campaigns(100, articles, rand);
for (const n of [1000, 10000]) if (size >= n) list = campaigns(n, articles, rand);
const index = buildCampaignIndex(list);
let rewards = 0;
const run = (from: number, n: number): void => {
  for (let i = from; i < from + n; i++) {
    const basket = pool[i % pool.length] as EngineBasket;
    rewards += evaluateBasket(index, SCHEMES, basket, basket.consumerKnown ? CONSUMER : null).rewards.length;
  }
};
run(0, warm);
run(warm, count);
console.log(`${size} campaigns, ${warm} + ${count} baskets, ${rewards} rewards`);
