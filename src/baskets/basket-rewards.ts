import type { BasketIdentity } from './basket-identity.js';
import { type WireId, loyaltyToWire, rewardsToWire, toEngineBasket } from './engine-adapter.js';
import { type RuleSet, type VersionRef, indexWithout } from '../campaigns/live-rules.store.js';
import type { BasketDeps } from './basket-deps.js';
import { type CampaignIndex, evaluateBasket } from '../engine/index.js';
import {
  type BudgetLeft,
  type BudgetReader,
  type HeldBack,
  budgetLeft,
  fitReadBudgets,
} from '../campaigns/campaign-budgets.js';
import { readBudgetUsage } from '../campaigns/campaign-budgets.store.js';
import { customerCampaignMayApply, evaluateOrder, orderCustomerState } from '../orders/order-campaigns.js';
import type { TierBasisRef } from '../engine/tiers.js';
import type { ConsumerState, EngineBasket, EngineResult } from '../engine/types.js';
import { type Consumer, consumerHoldings } from '../loyalty/points.store.js';
import { loadArticleGroups } from '../sortiment/article-groups.store.js';
import type { BasketTerminal, LoyaltyOut, RewardOut } from './basket.types.js';
import type { ParsedBasket } from './basket.parse.js';
import type { StoredBasket } from './stored-basket.js';
import type { EngineInputs, EngineSnapshot, PresentedCode } from './basket-model.js';
import { uniqueCodeKey } from '../campaigns/campaign-codes.js';

export interface BasketRewards {
  readonly rewards: RewardOut[];
  readonly loyalty: LoyaltyOut[];
  readonly snapshot: EngineSnapshot;
}

export function consumerOf(identity: BasketIdentity): Consumer | null {
  if (identity.profileId !== null) return { profileId: identity.profileId };
  if (identity.consumerCardId !== null) return { cardId: identity.consumerCardId };
  return null;
}

/** The refs of the campaigns and schemes a result was computed with. */
export function refsOf(
  result: EngineResult,
  ruleVersions: (kind: 'campaign' | 'scheme', id: number) => number,
): {
  campaigns: VersionRef[];
  schemes: VersionRef[];
} {
  const campaignIds = new Set<number>();
  for (const r of result.rewards) if (r.source === 'campaign') campaignIds.add(r.couponId);
  for (const u of result.couponUsages) campaignIds.add(u.campaignId);
  return {
    campaigns: [...campaignIds]
      .sort((a, b) => a - b)
      .map((id) => ({ id, version: ruleVersions('campaign', id) })),
    schemes: result.loyalty.map((l) => ({ id: l.schemeId, version: l.schemeVersion })),
  };
}

/** Where a basket is evaluated: what of its terminal the engine needs besides the basket. */
export interface RewardPlace {
  readonly merchantId: number;
  /** The terminal's outlet; null: no outlet (outlet-bound rules do not apply). */
  readonly outletId: number | null;
  /** The terminal's sortiment, where the articles' groups come from; null: no groups. */
  readonly sortimentId: number | null;
  /** The merchant's time zone: calendar periods of status tiers are its. */
  readonly timeZone: string;
}

export interface RewardEvaluation {
  readonly result: EngineResult;
  readonly rewards: RewardOut[];
  readonly loyalty: LoyaltyOut[];
  readonly consumer: Consumer | null;
  /** The groups of the basket's articles as read from the sortiment (absent when no rule asks). */
  readonly groupsByPlu: ReadonlyMap<string, string[]> | undefined;
  /** Campaigns left out because their rewards do not fit what is left of their budgets now. */
  readonly heldBack: readonly HeldBack[];
}

export interface RewardOptions {
  /** One explanation per campaign considered (the dry run's "why"). */
  readonly explain?: boolean;
  /** Shows engine ids under other ids on the wire (the dry run's drafts). */
  readonly wireId?: WireId;
  /**
   * A stand-in for the consumer's committed points and usages (the dry run's "what if"); absent:
   * the identified consumer's, read from the database.
   */
  readonly consumerState?: ConsumerState;
  /** The channel the basket comes through; default the till's, pos. */
  readonly channel?: 'pos' | 'checkout';
  /** Groups of PLUs the sortiment does not hold (the dry run's articles not filed yet). */
  readonly extraGroups?: ReadonlyMap<string, readonly string[]>;
  /** What is left of the budgets of campaigns not stored (the dry run's drafts), by engine id. */
  readonly draftBudgets?: ReadonlyMap<number, BudgetLeft>;
}

/**
 * The coupon codes the engine sees: the basket's, and for each unique code presented its
 * campaign's key (docs/decisions.md, "Unique codes").
 */
export function presentedCoupons(couponCodes: readonly string[], codes: readonly PresentedCode[]): string[] {
  return [...couponCodes, ...new Set(codes.map((c) => uniqueCodeKey(c.campaignId)))];
}

const NO_RESULT: EngineResult = { rewards: [], loyalty: [], explanations: [], couponUsages: [] };

/**
 * The one evaluation of a basket's rewards, for the till's upload and the dry run alike: the
 * groups of its articles from the terminal's sortiment, the basket's own time (its offset, read
 * in the merchant's time zone when it has none), the coupon codes and consumer of its identity
 * with the consumer's committed points and usages, and the given rule set. Reads only.
 */
export async function evaluateBasketRewards(
  db: BasketDeps['db'],
  ruleSet: RuleSet,
  place: RewardPlace,
  basket: ParsedBasket,
  identity: BasketIdentity,
  nowMs: number,
  options: RewardOptions = {},
): Promise<RewardEvaluation> {
  const consumer = consumerOf(identity);
  const consumerKnown = consumer !== null || options.consumerState !== undefined;
  if (ruleSet.campaignsById.size === 0 && ruleSet.schemes.length === 0) {
    // No campaign and no scheme: nothing can apply.
    return { result: NO_RESULT, rewards: [], loyalty: [], consumer, groupsByPlu: undefined, heldBack: [] };
  }
  // The groups of the basket's articles, when a rule can ask for them.
  let groupsByPlu: Map<string, string[]> | undefined;
  const plus = basket.positions.map((p) => p.productId).filter((p): p is string => p !== null);
  if (ruleSet.usesGroups && place.sortimentId !== null && plus.length > 0) {
    groupsByPlu = await loadArticleGroups(db, place.merchantId, place.sortimentId, plus);
  }
  let engineGroups: ReadonlyMap<string, readonly string[]> | undefined = groupsByPlu;
  if (options.extraGroups !== undefined && options.extraGroups.size > 0) {
    const merged = new Map<string, readonly string[]>(options.extraGroups);
    for (const [plu, groups] of groupsByPlu ?? []) merged.set(plu, groups);
    engineGroups = merged;
  }
  // On the channel checkout the basket is evaluated as an online order is priced: no outlet and
  // no coupon codes (docs/decisions.md, "The dry run on the channel checkout").
  const asOrder = options.channel === 'checkout';
  const engineBasket = toEngineBasket(basket, {
    outletId: asOrder ? null : place.outletId,
    channel: options.channel ?? 'pos',
    couponCodes: asOrder ? [] : presentedCoupons(identity.couponCodes, identity.codes),
    consumerKnown,
    ...(engineGroups ? { groupsByPlu: engineGroups } : {}),
  });
  if (asOrder) {
    // Campaigns only, with the customer's uses and tiers but not their points: the order's own
    // evaluation (a stand-in's points are refused on this channel).
    const { budgeted, read } = budgetsNow(db, place.merchantId, ruleSet, options.draftBudgets, nowMs);
    const customer =
      options.consumerState !== undefined
        ? { ...options.consumerState, points: new Map<number, number>() }
        : consumer !== null && customerCampaignMayApply(ruleSet, engineBasket)
          ? await orderCustomerState(db, ruleSet, place.merchantId, consumer, place.timeZone, nowMs)
          : null;
    const { result, heldBack } = await evaluateOrder(ruleSet, engineBasket, read, {
      explain: options.explain === true,
      budgeted,
      customer,
    });
    const rewards = rewardsToWire(result, basket.exponent, options.wireId);
    return { heldBack, result, rewards, loyalty: [], consumer, groupsByPlu };
  }
  let state: ConsumerState | null = options.consumerState ?? null;
  if (state === null && consumer !== null) {
    const schemeIds = ruleSet.schemes.map((s) => s.id);
    state = await consumerHoldings(
      db,
      place.merchantId,
      consumer,
      schemeIds,
      ruleSet.usageLimitedCampaignIds,
      nowMs,
      ruleSet.tierBases.length > 0 ? { bases: ruleSet.tierBases, timeZone: place.timeZone } : null,
    );
  }
  const run = (index: CampaignIndex) =>
    evaluateBasket(index, ruleSet.schemes, engineBasket, state, { explain: options.explain === true });
  const { result, heldBack } = await withinBudgets(db, ruleSet, place.merchantId, run, options, nowMs);
  return {
    heldBack,
    result,
    rewards: rewardsToWire(result, basket.exponent, options.wireId),
    loyalty: loyaltyToWire(result, basket.exponent, options.wireId),
    consumer,
    groupsByPlu,
  };
}

/**
 * The campaigns with a budget (the rule set's and the dry run's drafts') and what is left of them
 * now: the stored ones' read unlocked, so a grant may still take what is left first; the drafts'
 * as the dry run gives them.
 */
export function budgetsNow(
  db: BasketDeps['db'],
  merchantId: number,
  ruleSet: RuleSet,
  drafts: ReadonlyMap<number, BudgetLeft> | undefined,
  nowMs: number,
): { readonly budgeted: ReadonlySet<number>; readonly read: BudgetReader } {
  const budgeted =
    drafts === undefined || drafts.size === 0
      ? ruleSet.budgetedCampaignIds
      : new Set([...ruleSet.budgetedCampaignIds, ...drafts.keys()]);
  const read: BudgetReader = async (ids) => {
    const stored = ids.filter((id) => ruleSet.budgetedCampaignIds.has(id));
    const usage = await readBudgetUsage(db, merchantId, stored, nowMs);
    return [...usage.map(budgetLeft), ...ids.flatMap((id) => drafts?.get(id) ?? [])];
  };
  return { budgeted, read };
}

/**
 * The evaluation with every campaign whose rewards do not fit what is left of its budgets now left
 * out, as the grant will leave it out (docs/decisions.md, "Budgets at the upload and in the dry
 * run"). Budgets are read only when a campaign with one applied.
 */
async function withinBudgets(
  db: BasketDeps['db'],
  ruleSet: RuleSet,
  merchantId: number,
  run: (index: CampaignIndex) => EngineResult,
  options: RewardOptions,
  nowMs: number,
): Promise<{ result: EngineResult; heldBack: readonly HeldBack[] }> {
  const first = run(ruleSet.index);
  const { budgeted, read } = budgetsNow(db, merchantId, ruleSet, options.draftBudgets, nowMs);
  if (budgeted.size === 0) return { result: first, heldBack: [] };
  const fitted = await fitReadBudgets(
    (without) => (without.size === 0 ? first : run(indexWithout(ruleSet, without))),
    budgeted,
    read,
  );
  return { result: fitted.result, heldBack: fitted.heldBack };
}

/**
 * Rewards and loyalty of an uploaded basket, from the merchant's live rules (cached per rules
 * version), and what the grant needs to book them.
 */
export async function computeBasketRewards(
  { db, ruleSets }: Pick<BasketDeps, 'db' | 'ruleSets'>,
  unit: BasketTerminal,
  basket: ParsedBasket,
  identity: BasketIdentity,
  nowMs: number,
): Promise<BasketRewards> {
  const ruleSet = await ruleSets.get(unit.merchantId, unit.rulesVersion);
  const evaluated = await evaluateBasketRewards(db, ruleSet, unit, basket, identity, nowMs);
  const { result, consumer, groupsByPlu } = evaluated;
  const refs = withTierSchemes(
    ruleSet,
    refsOf(result, (kind, id) => (kind === 'campaign' ? (ruleSet.campaignsById.get(id)?.version ?? 0) : 0)),
  );
  return {
    rewards: evaluated.rewards,
    loyalty: evaluated.loyalty,
    snapshot: {
      inputs:
        refs.campaigns.length > 0 || refs.schemes.length > 0
          ? {
              merchantCurrency: unit.currency,
              timeZone: unit.timeZone,
              outletId: unit.outletId,
              couponCodes: [...identity.couponCodes],
              codes: [...identity.codes],
              consumerKnown: consumer !== null,
              groups: [...(groupsByPlu ?? new Map<string, string[]>())].filter(([, g]) => g.length > 0),
            }
          : null,
      consumer,
      ...refs,
      ...tieredSchemes(ruleSet, refs.schemes),
    },
  };
}

/**
 * The refs with the schemes that campaigns limited to tiers which applied are limited to: the grant
 * evaluates with these versions and reads their measures, to check the tier again (such a scheme is
 * valid for the basket, else no consumer has a tier in it there, so it has a loyalty line too).
 */
function withTierSchemes(
  ruleSet: RuleSet,
  refs: { campaigns: VersionRef[]; schemes: VersionRef[] },
): { campaigns: VersionRef[]; schemes: VersionRef[] } {
  if (ruleSet.index.tierSchemeIds.size === 0) return refs;
  const schemes = [...refs.schemes];
  for (const ref of refs.campaigns) {
    const schemeId = ruleSet.campaignsById.get(ref.id)?.tiers?.schemeId;
    const scheme = ruleSet.schemes.find((s) => s.id === schemeId);
    if (scheme !== undefined && !schemes.some((s) => s.id === scheme.id)) {
      schemes.push({ id: scheme.id, version: scheme.version });
    }
  }
  return { campaigns: refs.campaigns, schemes };
}

/** The tier bases of the schemes a basket touched, which the grant reads the measures of; none: nothing. */
function tieredSchemes(ruleSet: RuleSet, schemes: readonly VersionRef[]): { tierBases?: TierBasisRef[] } {
  if (ruleSet.tierBases.length === 0) return {};
  const touched = new Set(schemes.map((s) => s.id));
  const tierBases = ruleSet.tierBases.filter((b) => touched.has(b.schemeId));
  return tierBases.length > 0 ? { tierBases } : {};
}

/**
 * The basket as the engine saw it at the upload, rebuilt from the stored basket and inputs, with
 * those of its unique codes that are still free (`freeCodes`; the grant reads them).
 */
export function rebuildEngineBasket(
  basket: StoredBasket,
  inputs: EngineInputs,
  freeCodes: readonly PresentedCode[],
): EngineBasket {
  return toEngineBasket(basket, {
    outletId: inputs.outletId,
    channel: 'pos',
    couponCodes: presentedCoupons(inputs.couponCodes, freeCodes),
    consumerKnown: inputs.consumerKnown,
    groupsByPlu: new Map(inputs.groups),
  });
}
