import { createBasketState, type Line } from './basket-state.js';
import { campaignAllowance } from './campaign-conditions.js';
import {
  partitionsFor,
  type CampaignIndex,
  type CampaignPartition,
  type IndexedCampaign,
} from './campaign-index.js';
import {
  applyProductLevelCampaigns,
  applyReachableBillCampaigns,
  PRODUCT_LEVEL_RULES,
  sortTailByPosition,
} from './indexed-evaluation.js';
import { evaluateSchemes, schemeValidFor } from './loyalty.rule.js';
import { applyEveryStackedCampaign, applyStackedCandidates } from './stacking.js';
import { consumerTier } from './tiers.js';
import { applyBillCampaigns } from './rules/bill.rule.js';
import { wallClock } from './schedule.js';
import { reasonCode, type Reason } from './reasons.js';
import type {
  ConsumerState,
  EngineBasket,
  EngineResult,
  EvaluateOptions,
  Explanation,
  LoyaltyScheme,
  RewardLine,
} from './types.js';

/** A product-level campaign the index found for the basket, with its basket-level verdict. */
interface Candidate {
  readonly entry: IndexedCampaign;
  /** Applications allowed (>= 1), or why the campaign cannot apply to this basket. */
  readonly allowance: number | Reason;
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
  consumer = withTierNames(index, schemes, basket, consumer);
  const state = createBasketState(basket);
  const explanations: Explanation[] = [];
  const couponUsages: { campaignId: number; count: number }[] = [];
  const partitions = explain
    ? allPartitions(index)
    : partitionsFor(index, basket.outletId, basket.couponCodes);

  const applied = (campaignId: number, count: number): void => {
    explanations.push({ campaignId, applied: true, applications: count, reason: 'applied' });
    couponUsages.push({ campaignId, count });
  };
  const note = (entry: IndexedCampaign, result: number | Reason, blockedBy?: number[]): void => {
    if (typeof result === 'number') applied(entry.id, result);
    else if (explain) {
      explanations.push({
        campaignId: entry.id,
        applied: false,
        applications: 0,
        reason: result,
        ...(blockedBy !== undefined && blockedBy.length > 0 ? { blockedBy } : {}),
      });
    }
  };

  if (explain) {
    for (const c of productLevelCandidates(index, partitions, state.lines, basket, consumer)) {
      const type = c.entry.type;
      if (typeof c.allowance === 'string' || type === 'bill') {
        note(c.entry, c.allowance);
        continue;
      }
      const start = state.rewards.length;
      const result = PRODUCT_LEVEL_RULES[type](c.entry.campaign, state, c.allowance, c.lines);
      const code = typeof result === 'string' ? reasonCode(result) : null;
      const short = code === 'no_units_left' || code === 'too_few_units';
      note(c.entry, result, short ? takers(state.rewards, c.lines) : undefined);
      sortTailByPosition(state.rewards, start);
    }
    if (index.stacked.length > 0) applyEveryStackedCampaign(index, state, consumer, note);
    const bill = billCampaigns(partitions);
    if (bill.length > 0) {
      for (const outcome of applyBillCampaigns(bill, state, wallClock(basket.timestamp), consumer)) {
        note(
          outcome.entry,
          outcome.result,
          outcome.excludedBy === undefined ? undefined : [outcome.excludedBy],
        );
      }
    }
  } else if (!basket.hasDiscounts) {
    applyProductLevelCampaigns(index, state, consumer, applied);
    if (index.stacked.length > 0) applyStackedCandidates(index, state, consumer, note);
    if (partitions.some((p) => p.bill.length > 0)) {
      applyReachableBillCampaigns(index, partitions, state, wallClock(basket.timestamp), consumer, applied);
    }
  }

  const loyalty = evaluateSchemes(schemes, state, consumer);
  return { rewards: state.rewards, loyalty, explanations, couponUsages };
}

/**
 * The campaigns whose rewards sit on the lines (each once, in the order they rewarded): for a
 * campaign left without free units, those that took them before it.
 */
function takers(rewards: readonly RewardLine[], lines: readonly Line[]): number[] {
  const positions = new Set(lines.map((l) => l.position.positionId));
  const out: number[] = [];
  for (const r of rewards) {
    if (r.source === 'campaign' && positions.has(r.positionId) && !out.includes(r.couponId))
      out.push(r.couponId);
  }
  return out;
}

/**
 * The consumer with the name of their tier in each scheme a campaign is limited to tiers of (the
 * tier before the basket, the one that multiplies earning); unchanged when no campaign is. A scheme
 * not valid for the basket (its Timestamp, its outlet) gives no tier there: the consumer earns
 * nothing in it and has no tier in it, so a campaign limited to its tiers does not apply.
 */
function withTierNames(
  index: CampaignIndex,
  schemes: readonly LoyaltyScheme[],
  basket: EngineBasket,
  consumer: ConsumerState | null,
): ConsumerState | null {
  if (consumer === null || index.tierSchemeIds.size === 0) return consumer;
  const tierNames = new Map<number, string>();
  for (const scheme of schemes) {
    if (!index.tierSchemeIds.has(scheme.id) || !schemeValidFor(scheme, basket)) continue;
    const tier = consumerTier(scheme, consumer.tierMeasures?.get(scheme.id));
    if (tier !== null) tierNames.set(scheme.id, tier.name.toLowerCase());
  }
  return { ...consumer, tierNames };
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
