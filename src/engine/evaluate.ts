import { createBasketState } from './basket-state.js';
import { campaignAllowance } from './campaign-conditions.js';
import { evaluateSchemes } from './loyalty.rule.js';
import { applyBillCampaigns } from './rules/bill.rule.js';
import { applyCombinationCampaign } from './rules/combination.rule.js';
import { applyProductCampaign } from './rules/product.rule.js';
import { applyQuantityCampaign } from './rules/quantity.rule.js';
import { wallClock } from './schedule.js';
import type { Line } from './basket-state.js';
import type { CampaignIndex, IndexedCampaign } from './campaign-index.js';
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

/**
 * Rewards and loyalty points of one basket (CONTRACT section 2). Pure: the result depends only on
 * the arguments (not on the order of the positions), nothing is read from a clock and nothing
 * passed in is changed.
 *
 * Order: product, combination and quantity campaigns by priority descending then id (a unit takes
 * at most one product-level reward), then bill campaigns, then loyalty schemes by id. Rewards are
 * listed in that order, each campaign's entries by PositionId.
 *
 * Explanations: by default only the campaigns that applied; with `{ explain: true }` (dry run)
 * every campaign that was considered, i.e. every bill campaign and every product-level campaign
 * that names an article of the basket.
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

  const note = (entry: IndexedCampaign, result: number | string): void => {
    const campaignId = entry.campaign.id;
    if (typeof result === 'number') {
      explanations.push({ campaignId, applied: true, applications: result, reason: 'applied' });
      couponUsages.push({ campaignId, count: result });
    } else if (explain) {
      explanations.push({ campaignId, applied: false, applications: 0, reason: result });
    }
  };

  for (const entry of productLevelCandidates(index, state.lines, explain)) {
    const allowance = campaignAllowance(entry, basket, consumer);
    if (typeof allowance === 'string') {
      note(entry, allowance);
      continue;
    }
    const type = entry.campaign.type;
    if (type === 'bill') continue;
    const start = state.rewards.length;
    note(entry, PRODUCT_LEVEL_RULES[type](entry.campaign, state, allowance));
    sortTailByPosition(state.rewards, start);
  }

  if (index.bill.length > 0 && (!basket.hasDiscounts || explain)) {
    for (const outcome of applyBillCampaigns(index.bill, state, wallClock(basket.timestamp), consumer)) {
      note(outcome.entry, outcome.result);
    }
  }

  const loyalty = evaluateSchemes(schemes, state, consumer);
  return { rewards: state.rewards, loyalty, explanations, couponUsages };
}

/** Product-level campaigns that name an article (PLU or group) of a position that may take a reward. */
function productLevelCandidates(
  index: CampaignIndex,
  lines: readonly Line[],
  explain: boolean,
): IndexedCampaign[] {
  const seen = new Set<IndexedCampaign>();
  const out: IndexedCampaign[] = [];
  const take = (list: readonly IndexedCampaign[] | undefined): void => {
    if (list === undefined) return;
    for (const entry of list) {
      if (!seen.has(entry)) {
        seen.add(entry);
        out.push(entry);
      }
    }
  };
  let anyEligible = false;
  for (const line of lines) {
    if (!line.eligible && !explain) continue;
    anyEligible = true;
    const p = line.position;
    if (p.productId !== null) take(index.byPlu.get(p.productId));
    for (const g of p.groupIds) take(index.byGroup.get(g));
  }
  if (anyEligible) take(index.everyArticle);
  return out.sort((a, b) => a.rank - b.rank);
}

/** One campaign's rewards are listed by PositionId. */
function sortTailByPosition(rewards: RewardLine[], start: number): void {
  if (rewards.length - start < 2) return;
  const tail = rewards.splice(start).sort((a, b) => a.positionId - b.positionId);
  rewards.push(...tail);
}
