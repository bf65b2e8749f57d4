/**
 * Throughput of the pure engine: `npx tsx bench/engine.bench.ts` prints a table.
 *
 * Sortiment: 5,000 PLUs in 200 groups (20 top groups of 10 subgroups; an article belongs to its
 * subgroup and the top group). Baskets: 20 positions (10 % weighed, 1-3 pieces otherwise, 5 % with
 * HasDiscounts), a known consumer in half of them, a coupon code in 10 %, one of 50 outlets.
 * Campaigns, all valid now: 60 % product (85 % by PLU, 15 % by group), 20 % quantity (70 % by PLU,
 * 30 % by group), 18 % combination (PLU + PLU, or PLU + group), 2 % bill; group selectors name a
 * leaf group 9 times out of 10 and a department otherwise; 30 % need a coupon code, 60 % are
 * restricted to one of the 50 outlets, 20 % have a happy-hour schedule (open at the bench's
 * time), 20 % need a consumer, 10 % have a usage limit. Two loyalty schemes.
 * Everything is drawn from a seeded generator, so every run measures the same work.
 */
import { type CampaignIndex, buildCampaignIndex } from '../src/engine/campaign-index.js';
import { evaluateBasket } from '../src/engine/evaluate.js';
import type {
  Campaign,
  ConsumerState,
  Discount,
  EngineBasket,
  EnginePosition,
  LoyaltyScheme,
  Selector,
} from '../src/engine/types.js';

const PLU_COUNT = 5000;
const TOP_GROUPS = 20;
const SUBGROUPS_PER_TOP = 10;
const OUTLETS = 50;
const POSITIONS = 20;
const BASKET_POOL = 2000;
/** How many times the baskets' sortiment the wider one is (`widerSortiment`). */
export const WIDER = 100;
const NOW_MS = Date.UTC(2026, 2, 2, 16, 30);

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Article {
  plu: string;
  groupIds: string[];
  priceMinor: number;
}

export function sortiment(rand: () => number): Article[] {
  const articles: Article[] = [];
  for (let i = 0; i < PLU_COUNT; i++) {
    const top = i % TOP_GROUPS;
    const sub = Math.floor(i / TOP_GROUPS) % SUBGROUPS_PER_TOP;
    articles.push({
      plu: `P${i}`,
      groupIds: [`G${top}.${sub}`, `G${top}`],
      priceMinor: 50 + Math.floor(rand() * 2950),
    });
  }
  return articles;
}

/**
 * The sortiment of `factor` merchants' worth of articles, of which the baskets' own articles are the
 * first share (their PLUs and groups unchanged, the others named apart). Campaigns drawn over it
 * match a basket about as often at `factor` times the campaigns as the plain mix does: what grows
 * with their number is only the index, not the work the basket asks for.
 */
export function widerSortiment(articles: readonly Article[], factor: number): Article[] {
  return Array.from({ length: factor }, (_, k) =>
    articles.map((a) => ({
      plu: k === 0 ? a.plu : `W${k}-${a.plu}`,
      groupIds: k === 0 ? a.groupIds : a.groupIds.map((g) => `W${k}-${g}`),
      priceMinor: a.priceMinor,
    })),
  ).flat();
}

/** A value as it comes out of JSON.parse, like everything the service reads from a request or a row. */
function viaJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function campaigns(n: number, articles: readonly Article[], rand: () => number): Campaign[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const plu = (): Selector => ({ plu: pick(articles).plu });
  // Mostly leaf groups ("all lagers"); a department-wide campaign ("all drinks") is rarer.
  const group = (): Selector => {
    const ids = pick(articles).groupIds;
    return { group: (rand() < 0.9 ? ids[0] : ids[1]) ?? '' };
  };
  const discount = (): Discount => {
    const r = rand();
    if (r < 0.6) return { kind: 'percent', bp: 500 + Math.floor(rand() * 4500) };
    if (r < 0.85) return { kind: 'amount', minor: 10 + Math.floor(rand() * 200) };
    return { kind: 'price', minor: 50 + Math.floor(rand() * 500) };
  };
  const out: Campaign[] = [];
  for (let id = 1; id <= n; id++) {
    const r = rand();
    const type: Campaign['type'] =
      r < 0.6 ? 'product' : r < 0.8 ? 'quantity' : r < 0.98 ? 'combination' : 'bill';
    out.push({
      id,
      version: 1,
      name: `Campaign ${id}`,
      type,
      discount: type === 'quantity' ? { kind: 'percent', bp: 10000 } : discount(),
      products:
        type === 'product'
          ? [rand() < 0.85 ? plu() : group()]
          : type === 'quantity'
            ? [rand() < 0.7 ? plu() : group()]
            : [],
      combination:
        type === 'combination'
          ? [
              { selector: plu(), quantity: 1 },
              { selector: rand() < 0.8 ? plu() : group(), quantity: 1 },
            ]
          : [],
      buy: 2,
      get: 1,
      minTotalMinor: type === 'bill' ? Math.floor(rand() * 5000) : 0,
      maxApplications: null,
      couponCode: rand() < 0.3 ? `C${Math.floor(rand() * 100)}` : null,
      requiresConsumer: rand() < 0.2,
      validFromMs: NOW_MS - 86_400_000,
      validToMs: NOW_MS + 86_400_000,
      schedule: rand() < 0.2 ? [{ days: [1, 2, 3, 4, 5], fromMinute: 15 * 60, toMinute: 18 * 60 }] : [],
      outletIds: rand() < 0.6 ? [1 + Math.floor(rand() * OUTLETS)] : null,
      channels: [],
      priority: Math.floor(rand() * 3),
      exclusive: type === 'bill' && rand() < 0.2,
      usageLimitPerConsumer: rand() < 0.1 ? 5 : null,
    });
  }
  return viaJson(out);
}

/**
 * The same campaigns with stacking on: of the product campaigns 40 % stack with everything, 30 %
 * within one of three named groups, 10 % are exclusive, the rest keep the default.
 */
export function withStacking(list: readonly Campaign[], rand: () => number): Campaign[] {
  return list.map((c): Campaign => {
    if (c.type !== 'product') return c;
    const r = rand();
    if (r < 0.4) return { ...c, stacking: { mode: 'stackable' } };
    if (r < 0.7) return { ...c, stacking: { mode: 'group', group: `g${Math.floor(rand() * 3)}` } };
    if (r < 0.8) return { ...c, stacking: { mode: 'exclusive' } };
    return c;
  });
}

export function baskets(articles: readonly Article[], rand: () => number): EngineBasket[] {
  const out: EngineBasket[] = [];
  for (let b = 0; b < BASKET_POOL; b++) {
    const positions: EnginePosition[] = [];
    for (let p = 1; p <= POSITIONS; p++) {
      const a = articles[Math.floor(rand() * articles.length)] as Article;
      const weighed = rand() < 0.1;
      const pieces = weighed ? 0 : 1 + Math.floor(rand() * 3);
      positions.push({
        positionId: p,
        productId: viaJson(a.plu),
        groupIds: a.groupIds.map((g) => `${g.slice(0, 1)}${g.slice(1)}`),
        unit: weighed ? 1 : 0,
        pieces,
        unitPriceMinor: a.priceMinor,
        lineGrossMinor: weighed
          ? Math.round((a.priceMinor * (100 + Math.floor(rand() * 900))) / 1000)
          : a.priceMinor * pieces,
        hasDiscounts: rand() < 0.05,
        orderTime: null,
      });
    }
    out.push({
      timestamp: { utcMs: NOW_MS, offsetMinutes: 60 },
      hasDiscounts: false,
      outletId: 1 + Math.floor(rand() * OUTLETS),
      channel: 'pos',
      couponCodes: rand() < 0.1 ? [`C${Math.floor(rand() * 100)}`] : [],
      consumerKnown: b % 2 === 0,
      positions,
    });
  }
  return out;
}

export const SCHEMES: LoyaltyScheme[] = [
  {
    id: 1,
    version: 1,
    name: 'Points',
    earn: [{ per: 'amount', amountMinor: 100, points: 1 }],
    reward: { threshold: 500, type: 'bill', discount: { kind: 'amount', minor: 500 } },
    validFromMs: null,
    validToMs: null,
    outletIds: null,
    pointsExpireAfterDays: 365,
  },
  {
    id: 2,
    version: 1,
    name: 'Coffee card',
    earn: [{ per: 'unit', products: [{ group: 'G3' }], points: 1 }],
    reward: {
      threshold: 10,
      type: 'product',
      products: [{ group: 'G3' }],
      discount: { kind: 'percent', bp: 10000 },
    },
    validFromMs: null,
    validToMs: null,
    outletIds: null,
    pointsExpireAfterDays: null,
  },
];

export const CONSUMER: ConsumerState = {
  usages: new Map([[1, 2]]),
  points: new Map([
    [1, 480],
    [2, 9],
  ]),
};

export interface EngineBenchRow {
  /** Active campaigns; 0 for the calibration. */
  campaigns: number;
  /** The same campaigns with stacking on (withStacking). */
  stacking: boolean;
  /**
   * Campaigns drawn over a sortiment `WIDER` times the baskets' (`widerSortiment`), so that a basket
   * meets about as many as with `campaigns / WIDER` of the plain mix.
   */
  wider: boolean;
  medianPerSec: number;
  bestPerSec: number;
  /** Per second of the process's own CPU time: what is left when neighbours take the core away. */
  medianPerCpuSec: number;
}

/**
 * Calls of `once` per second over `seconds`, in batches of 100 between clock reads, by the wall
 * clock and by the process's CPU time.
 */
function rate(
  once: (i: number) => void,
  seconds: number,
  from: number,
): { count: number; perSec: number; perCpuSec: number } {
  let count = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let k = 0; k < 100; k++) once(from + count++);
  }
  const wallSec = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return { count, perSec: count / wallSec, perCpuSec: count / ((used.user + used.system) / 1e6) };
}

/**
 * Baskets per second for each campaign count, and a calibration (JSON round trips of a
 * basket-sized document) measured the same way. The machine is shared, and a neighbour can halve
 * a figure for a second: every subject runs in short rounds taken in turn, so that a disturbance
 * touches them alike, and each gets the median and the best of its rounds.
 */
export async function runEngineBench(
  sizes: readonly number[] = [100, 1000, 10000],
  rounds = 9,
  secondsPerRound = 0.4,
): Promise<EngineBenchRow[]> {
  const rand = mulberry32(20260302);
  const articles = sortiment(rand);
  const pool = baskets(articles, rand);
  let sink = 0;
  const doc = JSON.stringify({
    Positions: Array.from({ length: 20 }, (_, i) => ({ PositionId: i, Amount: 1.5 })),
  });
  type Subject = {
    campaigns: number;
    stacking: boolean;
    wider: boolean;
    once: (i: number) => void;
    next: number;
    rates: number[];
    cpu: number[];
  };
  const subjects: Subject[] = [
    {
      campaigns: 0,
      stacking: false,
      wider: false,
      once: () => void (sink += JSON.stringify(JSON.parse(doc)).length),
      next: 0,
      rates: [],
      cpu: [],
    },
  ];
  const evaluating = (
    index: CampaignIndex,
    campaignCount: number,
    stacking: boolean,
    wider: boolean,
  ): Subject => ({
    campaigns: campaignCount,
    stacking,
    wider,
    once: (i) => {
      const basket = pool[i % pool.length] as EngineBasket;
      sink += evaluateBasket(index, SCHEMES, basket, basket.consumerKnown ? CONSUMER : null).rewards.length;
    },
    next: 0,
    rates: [],
    cpu: [],
  });
  for (const size of sizes) {
    const list = campaigns(size, articles, rand);
    for (const stacking of [false, true]) {
      subjects.push(
        evaluating(
          buildCampaignIndex(stacking ? withStacking(list, mulberry32(size)) : list),
          size,
          stacking,
          false,
        ),
      );
    }
  }
  // The largest count again over the wider sortiment, from a generator of its own so that the
  // campaigns above stay what they were.
  const largest = Math.max(...sizes);
  const wider = campaigns(largest, widerSortiment(articles, WIDER), mulberry32(largest + 1));
  subjects.push(evaluating(buildCampaignIndex(wider), largest, false, true));
  for (const s of subjects) s.next += rate(s.once, 0.5, s.next).count;
  for (let r = 0; r < rounds; r++) {
    for (const s of subjects) {
      const { count, perSec, perCpuSec } = rate(s.once, secondsPerRound, s.next);
      s.next += count;
      s.rates.push(perSec);
      s.cpu.push(perCpuSec);
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  if (sink < 0) console.log(sink);
  const median = (xs: readonly number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;
  return subjects.map((s) => ({
    campaigns: s.campaigns,
    stacking: s.stacking,
    wider: s.wider,
    medianPerSec: Math.round(median(s.rates)),
    bestPerSec: Math.round(Math.max(...s.rates)),
    medianPerCpuSec: Math.round(median(s.cpu)),
  }));
}

// (bench/engine-counts.ts bundles this module: its bundle is not this file)
const invokedDirectly =
  process.argv[1] !== undefined &&
  /engine\.bench\.[tj]s$/.test(process.argv[1]) &&
  import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly) {
  const results = await runEngineBench();
  console.table(
    results.map((r) => ({
      campaigns:
        r.campaigns === 0
          ? 'JSON round trip'
          : `${r.campaigns}${r.wider ? ` over ${WIDER}x the sortiment` : ''}`,
      stacking: r.stacking ? 'on' : 'off',
      'median/s': r.medianPerSec,
      'best/s': r.bestPerSec,
      'median/CPU s': r.medianPerCpuSec,
    })),
  );
}
