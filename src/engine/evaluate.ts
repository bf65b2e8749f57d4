import { createBasketState, type Line } from './basket-state.js';
import { campaignAllowance } from './campaign-conditions.js';
import {
  CHANNEL_BITS,
  partitionsFor,
  type CampaignIndex,
  type CampaignPartition,
  type IndexedCampaign,
} from './campaign-index.js';
import { evaluateSchemes } from './loyalty.rule.js';
import { applyBillCampaigns } from './rules/bill.rule.js';
import { applyCombinationCampaign } from './rules/combination.rule.js';
import { applyProductCampaign } from './rules/product.rule.js';
import { applyQuantityCampaign } from './rules/quantity.rule.js';
import { wallClock } from './schedule.js';
import type { ProductLevelRule } from './rules/rule.js';
import type {
  ConsumerState,
  EngineBasket,
  EngineResult,
  EvaluateOptions,
  Explanation,
  LoyaltyScheme,
  RewardLine,
} from './types.js';

const PRODUCT_LEVEL_RULES: Readonly<Record<'product' | 'combination' | 'quantity', ProductLevelRule>> = {
  product: applyProductCampaign,
  combination: applyCombinationCampaign,
  quantity: applyQuantityCampaign,
};

/** A product-level campaign the index found for the basket, with its basket-level verdict. */
interface Candidate {
  readonly entry: IndexedCampaign;
  /** Applications allowed (>= 1), or why the campaign cannot apply to this basket. */
  readonly allowance: number | string;
  /** Eligible lines that named it, by PositionId (empty when it cannot apply). */
  readonly lines: Line[];
}

/**
 * Rewards and loyalty points of one basket (docs/decisions.md, "Reward engine rules"). Pure: the result depends only on
 * the arguments (not on the order of the positions, campaigns or schemes), nothing is read from a
 * clock and nothing passed in is changed.
 *
 * Order: product, combination and quantity campaigns by priority descending then id (a unit takes
 * at most one product-level reward), then bill campaigns, then loyalty schemes by id. Rewards are
 * listed in that order, each campaign's entries by PositionId.
 *
 * Explanations: by default only the campaigns that applied (cheap); with `{ explain: true }` (dry
 * run) also every campaign that was considered and did not apply, with the reason: every bill
 * campaign and every product-level campaign naming an article of the basket, of every outlet and
 * coupon code.
 */
export function evaluateBasket(
  index: CampaignIndex,
  schemes: readonly LoyaltyScheme[],
  basket: EngineBasket,
  consumer: ConsumerState | null,
  options: EvaluateOptions = {},
): EngineResult {
  const explain = options.explain === true;
  const state = createBasketState(basket);
  const explanations: Explanation[] = [];
  const couponUsages: { campaignId: number; count: number }[] = [];
  const partitions = explain
    ? allPartitions(index)
    : partitionsFor(index, basket.outletId, basket.couponCodes);

  const note = (entry: IndexedCampaign, result: number | string): void => {
    const campaignId = entry.id;
    if (typeof result === 'number') {
      explanations.push({ campaignId, applied: true, applications: result, reason: 'applied' });
      couponUsages.push({ campaignId, count: result });
    } else if (explain) {
      explanations.push({ campaignId, applied: false, applications: 0, reason: result });
    }
  };

  if (!basket.hasDiscounts || explain) {
    const candidates = explain
      ? productLevelCandidates(index, partitions, state.lines, basket, consumer)
      : applicableCandidates(index, partitions, state.lines, basket, consumer);
    for (const c of candidates) {
      // Without explanations, a campaign whose lines are all taken is not even looked at: every rule
      // would answer "no units" without changing anything (and reading the campaign costs a cache miss).
      if (!explain && !anyFreeLine(c.lines)) continue;
      const type = c.entry.type;
      if (typeof c.allowance === 'string' || type === 'bill') {
        note(c.entry, c.allowance);
        continue;
      }
      const start = state.rewards.length;
      note(c.entry, PRODUCT_LEVEL_RULES[type](c.entry.campaign, state, c.allowance, c.lines));
      sortTailByPosition(state.rewards, start);
    }

    const bill = billCampaigns(partitions);
    if (bill.length > 0) {
      for (const outcome of applyBillCampaigns(bill, state, wallClock(basket.timestamp), consumer)) {
        note(outcome.entry, outcome.result);
      }
    }
  }

  const loyalty = evaluateSchemes(schemes, state, consumer);
  return { rewards: state.rewards, loyalty, explanations, couponUsages };
}

/**
 * Per-index scratch space to find each campaign once per basket without a Map: `mark[2 * rank]`
 * holds the number of the evaluation that last found it and `mark[2 * rank + 1]` its place in that
 * evaluation's candidate list (-1 when it cannot apply), side by side so that one cache line holds
 * both; `ranks` lists the ranks found (sorted as numbers, which needs no comparator). Evaluation is
 * synchronous and calls out to nothing, so one buffer per index is never shared by two evaluations
 * at a time; it is invisible from outside (results do not depend on it).
 */
interface Scratch {
  readonly mark: Int32Array;
  readonly ranks: Int32Array;
  generation: number;
}
const scratchByIndex = new WeakMap<CampaignIndex, Scratch>();

function scratchFor(index: CampaignIndex): Scratch {
  let s = scratchByIndex.get(index);
  if (s === undefined) {
    s = { mark: new Int32Array(2 * index.size), ranks: new Int32Array(index.size), generation: 0 };
    scratchByIndex.set(index, s);
  }
  if (s.generation === 0x7fffffff) {
    s.mark.fill(0);
    s.generation = 0;
  }
  s.generation += 1;
  return s;
}

/** The basket-level conditions from the index's arrays; 0 when the campaign cannot apply. */
function quickAllowance(
  index: CampaignIndex,
  rank: number,
  basket: EngineBasket,
  consumer: ConsumerState | null,
): number {
  const k = index.checks;
  const at = basket.timestamp.utcMs;
  if (at < (k.validFromMs[rank] as number) || at >= (k.validToMs[rank] as number)) return 0;
  if (((k.channelMask[rank] as number) & CHANNEL_BITS[basket.channel]) === 0) return 0;
  if (k.requiresConsumer[rank] === 1 && !basket.consumerKnown) return 0;
  if (k.checkOutlet[rank] === 1) {
    const outletIds = index.entries[rank]?.outletIds ?? null;
    if (outletIds !== null && (basket.outletId === null || !outletIds.includes(basket.outletId))) return 0;
  }
  let max = k.maxApplications[rank] as number;
  const limit = k.usageLimit[rank] as number;
  if (limit === limit) {
    if (consumer === null || !basket.consumerKnown) return 0;
    const left = limit - (consumer.usages.get(k.id[rank] as number) ?? 0);
    if (left <= 0) return 0;
    max = Math.min(max, left);
  }
  return max >= 1 ? max : 0;
}

/**
 * Without explanations: the product-level campaigns that can apply to the basket (basket-level
 * conditions met), in processing order, with their lines. Only the partitions the basket can see
 * are searched, so their coupon code and outlet are settled by where they were found (except a
 * coupon campaign restricted to outlets, checked here); the other conditions come from the
 * index's arrays, and no campaign object is read unless it can apply. Gives the same candidates
 * as productLevelCandidates minus those that cannot apply (a property test holds them equal).
 */
function applicableCandidates(
  index: CampaignIndex,
  partitions: readonly CampaignPartition[],
  lines: readonly Line[],
  basket: EngineBasket,
  consumer: ConsumerState | null,
): Candidate[] {
  if (basket.hasDiscounts) return [];
  const { mark, ranks, generation } = scratchFor(index);
  const found: Line[][] = [];
  const allowances: number[] = [];
  const add = (list: Int32Array, at: number, line: Line): void => {
    const end = at + 1 + (list[at] as number);
    for (let i = at + 1; i < end; i++) {
      const rank = list[i] as number;
      const m = 2 * rank;
      if (mark[m] !== generation) {
        mark[m] = generation;
        const allowance = quickAllowance(index, rank, basket, consumer);
        if (allowance === 0) {
          mark[m + 1] = -1;
          continue;
        }
        mark[m + 1] = found.length;
        ranks[found.length] = rank;
        allowances.push(allowance);
        found.push([line]);
        continue;
      }
      const slot = mark[m + 1] as number;
      if (slot < 0) continue;
      const own = found[slot] as Line[];
      if (own[own.length - 1] !== line) own.push(line);
    }
  };
  for (const line of lines) {
    if (!line.eligible) continue;
    const p = line.position;
    for (const partition of partitions) {
      const list = partition.ranks;
      if (list.length === 0) continue;
      if (p.productId !== null && partition.pluAt.size > 0) {
        const at = partition.pluAt.get(p.productId);
        if (at !== undefined) add(list, at, line);
      }
      if (partition.groupAt.size > 0) {
        for (const g of p.groupIds) {
          const at = partition.groupAt.get(g);
          if (at !== undefined) add(list, at, line);
        }
      }
      if (partition.everyArticleAt >= 0) add(list, partition.everyArticleAt, line);
    }
  }
  if (found.length === 0) return [];
  const order = found.length === 1 ? ranks.subarray(0, 1) : ranks.subarray(0, found.length).sort();
  const out = new Array<Candidate>(order.length);
  for (let i = 0; i < order.length; i++) {
    const rank = order[i] as number;
    const slot = mark[2 * rank + 1] as number;
    out[i] = {
      entry: index.entries[rank] as IndexedCampaign,
      allowance: allowances[slot] as number,
      lines: found[slot] as Line[],
    };
  }
  return out;
}

/** The lines of a candidate that cannot apply: it collects none, so all of them can share one list. */
const NO_LINES: Line[] = [];

/**
 * Product-level campaigns named by a PLU or group of an eligible line, in processing order, each
 * with its lines. The basket-level conditions are checked once per campaign, when first found;
 * a campaign that fails them collects no lines.
 */
function productLevelCandidates(
  index: CampaignIndex,
  partitions: readonly CampaignPartition[],
  lines: readonly Line[],
  basket: EngineBasket,
  consumer: ConsumerState | null,
): Candidate[] {
  const { mark, ranks, generation } = scratchFor(index);
  const found: Candidate[] = [];
  const add = (list: readonly IndexedCampaign[], line: Line): void => {
    for (let i = 0; i < list.length; i++) {
      const entry = list[i] as IndexedCampaign;
      const rank = entry.rank;
      let c: Candidate;
      if (mark[2 * rank] === generation) {
        c = found[mark[2 * rank + 1] as number] as Candidate;
      } else {
        mark[2 * rank] = generation;
        mark[2 * rank + 1] = found.length;
        ranks[found.length] = rank;
        const allowance = campaignAllowance(entry, basket, consumer);
        c = { entry, allowance, lines: typeof allowance === 'number' ? [] : NO_LINES };
        found.push(c);
      }
      if (typeof c.allowance === 'number' && c.lines[c.lines.length - 1] !== line) c.lines.push(line);
    }
  };
  for (const line of lines) {
    if (!line.eligible && !basket.hasDiscounts) continue;
    const p = line.position;
    for (const partition of partitions) {
      if (p.productId !== null && partition.byPlu.size > 0) {
        const list = partition.byPlu.get(p.productId);
        if (list !== undefined) add(list, line);
      }
      if (partition.byGroup.size > 0) {
        for (const g of p.groupIds) {
          const list = partition.byGroup.get(g);
          if (list !== undefined) add(list, line);
        }
      }
      if (partition.everyArticle.length > 0) add(partition.everyArticle, line);
    }
  }
  if (found.length < 2) return found;
  // Ranks sort as plain numbers (no comparator); each rank leads back to its candidate.
  const order = ranks.subarray(0, found.length).sort();
  const sorted = new Array<Candidate>(found.length);
  for (let i = 0; i < order.length; i++)
    sorted[i] = found[mark[2 * (order[i] as number) + 1] as number] as Candidate;
  return sorted;
}

/** Whether a product-level rule could still take a unit of one of the lines. */
function anyFreeLine(lines: readonly Line[]): boolean {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as Line;
    if (line.eligible && (line.freePieces > 0 || line.weighedFree)) return true;
  }
  return false;
}

/** Bill campaigns of the partitions, in processing order (each partition's list is already sorted). */
function billCampaigns(partitions: readonly CampaignPartition[]): readonly IndexedCampaign[] {
  let merged: readonly IndexedCampaign[] = [];
  for (const p of partitions) {
    if (p.bill.length === 0) continue;
    merged = merged.length === 0 ? p.bill : mergeByRank(merged, p.bill);
  }
  return merged;
}

function mergeByRank(a: readonly IndexedCampaign[], b: readonly IndexedCampaign[]): IndexedCampaign[] {
  const out: IndexedCampaign[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.rank < y.rank)) {
      if (x !== undefined) out.push(x);
      i += 1;
    } else if (x === undefined || y.rank < x.rank) {
      out.push(y);
      j += 1;
    } else {
      out.push(x); // the same campaign in two partitions (several outlets, explain mode)
      i += 1;
      j += 1;
    }
  }
  return out;
}

function allPartitions(index: CampaignIndex): CampaignPartition[] {
  return [index.everywhere, ...index.byOutlet.values(), ...index.byCoupon.values()];
}

/** One campaign's rewards are listed by PositionId. */
function sortTailByPosition(rewards: RewardLine[], start: number): void {
  if (rewards.length - start < 2) return;
  const tail = rewards.splice(start).sort((a, b) => a.positionId - b.positionId);
  rewards.push(...tail);
}
