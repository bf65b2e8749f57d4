import { createBasketState, type Line } from './basket-state.js';
import { campaignAllowance } from './campaign-conditions.js';
import {
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
 * Rewards and loyalty points of one basket (CONTRACT section 2). Pure: the result depends only on
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
    const campaignId = entry.campaign.id;
    if (typeof result === 'number') {
      explanations.push({ campaignId, applied: true, applications: result, reason: 'applied' });
      couponUsages.push({ campaignId, count: result });
    } else if (explain) {
      explanations.push({ campaignId, applied: false, applications: 0, reason: result });
    }
  };

  if (!basket.hasDiscounts || explain) {
    for (const c of productLevelCandidates(partitions, state.lines, basket, consumer)) {
      const type = c.entry.campaign.type;
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
 * Product-level campaigns named by a PLU or group of an eligible line, in processing order, each
 * with its lines. The basket-level conditions are checked once per campaign, when first found.
 */
function productLevelCandidates(
  partitions: readonly CampaignPartition[],
  lines: readonly Line[],
  basket: EngineBasket,
  consumer: ConsumerState | null,
): Candidate[] {
  const found = new Map<IndexedCampaign, Candidate>();
  const add = (list: readonly IndexedCampaign[] | undefined, line: Line): void => {
    if (list === undefined) return;
    for (const entry of list) {
      let c = found.get(entry);
      if (c === undefined) {
        c = { entry, allowance: campaignAllowance(entry, basket, consumer), lines: [] };
        found.set(entry, c);
      }
      if (typeof c.allowance === 'number' && c.lines[c.lines.length - 1] !== line) c.lines.push(line);
    }
  };
  for (const line of lines) {
    if (!line.eligible && !basket.hasDiscounts) continue;
    const p = line.position;
    for (const partition of partitions) {
      if (p.productId !== null && partition.byPlu.size > 0) add(partition.byPlu.get(p.productId), line);
      if (partition.byGroup.size > 0) for (const g of p.groupIds) add(partition.byGroup.get(g), line);
      add(partition.everyArticle, line);
    }
  }
  return [...found.values()].sort((a, b) => a.entry.rank - b.entry.rank);
}

function billCampaigns(partitions: readonly CampaignPartition[]): readonly IndexedCampaign[] {
  let only: readonly IndexedCampaign[] | null = null;
  let count = 0;
  for (const p of partitions) {
    if (p.bill.length > 0) {
      only = p.bill;
      count += 1;
    }
  }
  if (count <= 1) return only ?? [];
  const merged = new Set<IndexedCampaign>();
  for (const p of partitions) for (const e of p.bill) merged.add(e);
  return [...merged].sort((a, b) => a.rank - b.rank);
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
