import { bookBillReward, createBasketState, type Line } from '../../src/engine/basket-state.js';
import { discountOnValue } from '../../src/engine/discount.js';
import { evaluateSchemes } from '../../src/engine/loyalty.rule.js';
import { applyCombinationCampaign } from '../../src/engine/rules/combination.rule.js';
import { applyProductCampaign } from '../../src/engine/rules/product.rule.js';
import { applyQuantityCampaign } from '../../src/engine/rules/quantity.rule.js';
import { inSchedule, wallClock } from '../../src/engine/schedule.js';
import { exclusiveVersions } from '../../src/engine/exclusive-versions.js';
import { applyStackedCampaign, stackingCarries } from '../../src/engine/stacking.js';
import type {
  Campaign,
  ConsumerState,
  EngineBasket,
  EnginePosition,
  LoyaltyLine,
  LoyaltyScheme,
  RewardLine,
  Selector,
} from '../../src/engine/types.js';

/**
 * The reward engine without any index: every campaign is looked at for every basket, in the
 * processing order of docs/decisions.md ("Campaigns and schemes": priority highest first, then id,
 * then version highest first; bill campaigns last), its basket-level conditions read straight from
 * the campaign, its lines found by comparing every selector with every position. The rules of one
 * campaign type (the files under src/engine/rules) are shared with the engine: what this answers
 * for is which campaigns a basket sees, with which lines and in which order, not the arithmetic of
 * a single rule. The bill step is written out here from the rule's documented text.
 */
export interface ReferenceResult {
  rewards: RewardLine[];
  loyalty: LoyaltyLine[];
  couponUsages: { campaignId: number; count: number }[];
}

const RULES = {
  product: applyProductCampaign,
  combination: applyCombinationCampaign,
  quantity: applyQuantityCampaign,
} as const;

function byProcessingOrder(a: Campaign, b: Campaign): number {
  return b.priority - a.priority || a.id - b.id || b.version - a.version;
}

function matches(s: Selector, p: EnginePosition): boolean {
  return 'plu' in s ? p.productId === s.plu : p.groupIds.includes(s.group);
}

/** Applications the campaign may have in this basket, or 0 when a basket-level condition fails. */
function allowance(c: Campaign, basket: EngineBasket, consumer: ConsumerState | null): number {
  const atMs = basket.timestamp.utcMs;
  if (c.validFromMs !== null && atMs < c.validFromMs) return 0;
  if (c.validToMs !== null && atMs >= c.validToMs) return 0;
  if (c.outletIds !== null && (basket.outletId === null || !c.outletIds.includes(basket.outletId))) return 0;
  if (c.channels.length > 0 && !c.channels.includes(basket.channel)) return 0;
  if (c.couponCode !== null && !basket.couponCodes.includes(c.couponCode)) return 0;
  if (c.requiresConsumer && !basket.consumerKnown) return 0;
  let max = c.maxApplications ?? (c.type === 'bill' ? 1 : Number.POSITIVE_INFINITY);
  if (c.usageLimitPerConsumer !== null) {
    if (consumer === null || !basket.consumerKnown) return 0;
    max = Math.min(max, c.usageLimitPerConsumer - (consumer.usages.get(c.id) ?? 0));
  }
  return max >= 1 ? max : 0;
}

/** Eligible lines one of the campaign's selectors names (product and quantity: none = every article). */
function linesOf(c: Campaign, lines: readonly Line[]): Line[] {
  const selectors = c.type === 'combination' ? c.combination.map((part) => part.selector) : c.products;
  if (c.type === 'combination' && selectors.length === 0) return [];
  return lines.filter(
    (l) => l.eligible && (selectors.length === 0 || selectors.some((s) => matches(s, l.position))),
  );
}

/**
 * A campaign limited to tiers is open to an identified consumer whose tier in the scheme (the
 * highest tier whose threshold the measure reaches) has one of the names, ignoring case; a scheme
 * not valid at the basket's Timestamp and outlet gives no tier.
 */
function tierOpen(
  c: Campaign,
  schemes: readonly LoyaltyScheme[],
  basket: EngineBasket,
  consumer: ConsumerState | null,
): boolean {
  if (!c.tiers) return true;
  if (consumer === null || !basket.consumerKnown) return false;
  const limit = c.tiers;
  const measure = consumer.tierMeasures?.get(limit.schemeId);
  const scheme = schemes.find((s) => s.id === limit.schemeId);
  const tiers = scheme?.tiers ?? [];
  if (measure === undefined || scheme === undefined) return false;
  const atMs = basket.timestamp.utcMs;
  if (scheme.validFromMs !== null && atMs < scheme.validFromMs) return false;
  if (scheme.validToMs !== null && atMs >= scheme.validToMs) return false;
  if (
    scheme.outletIds !== null &&
    (basket.outletId === null || !scheme.outletIds.includes(basket.outletId))
  ) {
    return false;
  }
  const reached = tiers.filter((t) => measure >= t.threshold).pop();
  return reached !== undefined && limit.names.some((n) => n.toLowerCase() === reached.name.toLowerCase());
}

export function referenceEvaluate(
  campaigns: readonly Campaign[],
  schemes: readonly LoyaltyScheme[],
  basket: EngineBasket,
  consumer: ConsumerState | null,
): ReferenceResult {
  const state = createBasketState(basket);
  const couponUsages: { campaignId: number; count: number }[] = [];
  const ordered = campaigns.filter((c) => tierOpen(c, schemes, basket, consumer)).sort(byProcessingOrder);
  if (!basket.hasDiscounts) {
    for (const c of ordered) {
      if (c.type === 'bill' || stacks(c)) continue;
      const max = allowance(c, basket, consumer);
      const lines = linesOf(c, state.lines);
      if (max === 0 || lines.length === 0) continue;
      const start = state.rewards.length;
      record(c, RULES[c.type](c, state, max, lines), state, start, couponUsages);
    }
    stackingStep(ordered, { state, basket, consumer, couponUsages });
    billStep(
      ordered.filter((c) => c.type === 'bill'),
      state,
      basket,
      consumer,
      couponUsages,
    );
  }
  return { rewards: state.rewards, loyalty: evaluateSchemes(schemes, state, consumer), couponUsages };
}

/** A product campaign set to stack with everything or within a group. */
function stacks(c: Campaign): boolean {
  return c.type === 'product' && (c.stacking?.mode === 'stackable' || c.stacking?.mode === 'group');
}

const KIND_ORDER = { percent: 0, amount: 1, price: 2 } as const;

/**
 * The campaigns set to stack after the other product-level ones, every one of them in order of
 * application (priority highest first, then percentage before amount before price, then the
 * processing order), each offered every line of the basket.
 */
function stackingStep(
  ordered: readonly Campaign[],
  run: {
    state: ReturnType<typeof createBasketState>;
    basket: EngineBasket;
    consumer: ConsumerState | null;
    couponUsages: { campaignId: number; count: number }[];
  },
): void {
  const { state, basket, consumer, couponUsages } = run;
  const stacked = ordered
    .filter(stacks)
    .sort((a, b) => b.priority - a.priority || KIND_ORDER[a.discount.kind] - KIND_ORDER[b.discount.kind]);
  if (stacked.length === 0) return;
  const carries = stackingCarries(state, exclusiveVersions(ordered));
  for (const c of stacked) {
    const max = allowance(c, basket, consumer);
    if (max === 0) continue;
    const start = state.rewards.length;
    record(c, applyStackedCampaign(c, state, max, carries, state.lines), state, start, couponUsages);
  }
}

/** One campaign's rewards (those from `start` on) listed by PositionId, its applications counted. */
function record(
  c: Campaign,
  result: number | string,
  state: ReturnType<typeof createBasketState>,
  start: number,
  couponUsages: { campaignId: number; count: number }[],
): void {
  const tail = state.rewards.splice(start).sort((a, b) => a.positionId - b.positionId);
  state.rewards.push(...tail);
  if (typeof result === 'number') couponUsages.push({ campaignId: c.id, count: result });
}

/**
 * Bill campaigns after every product-level reward: each is checked against the total left then;
 * `amount` off applies once per full multiple of the minimum total (once without one), up to its
 * applications; when any applicable one is exclusive, the first of those is the only bill reward;
 * rewards are taken of the bill left at their turn and never exceed it.
 */
function billStep(
  bills: readonly Campaign[],
  state: ReturnType<typeof createBasketState>,
  basket: EngineBasket,
  consumer: ConsumerState | null,
  couponUsages: { campaignId: number; count: number }[],
): void {
  const base = state.billLeftMinor;
  const clock = wallClock(basket.timestamp);
  const reward = (c: Campaign, left: number, applications: number): number =>
    c.discount.kind === 'amount'
      ? Math.min(left, Math.max(0, c.discount.minor) * applications)
      : discountOnValue(c.discount, left);
  const applicable: { c: Campaign; applications: number }[] = [];
  for (const c of bills) {
    const max = allowance(c, basket, consumer);
    if (max === 0 || !inSchedule(c.schedule, clock) || base <= 0 || base < c.minTotalMinor) continue;
    const applications =
      c.discount.kind === 'amount' && c.minTotalMinor > 0
        ? Math.min(max, Math.floor(base / c.minTotalMinor))
        : 1;
    if (reward(c, base, applications) > 0) applicable.push({ c, applications });
  }
  const exclusive = applicable.find((a) => a.c.exclusive);
  for (const a of exclusive === undefined ? applicable : [exclusive]) {
    const minor = reward(a.c, state.billLeftMinor, a.applications);
    if (minor <= 0) continue;
    bookBillReward(state, minor, 'campaign', a.c.id, a.c.name, a.c.version);
    couponUsages.push({ campaignId: a.c.id, count: a.applications });
  }
}
