import type { BasketIdentity } from './basket-identity.js';
import { loyaltyToWire, rewardsToWire, toEngineBasket } from './engine-adapter.js';
import type { VersionRef } from '../campaigns/rules.store.js';
import type { BasketDeps } from './basket-deps.js';
import { evaluateBasket } from '../engine/index.js';
import type { ConsumerState, EngineBasket, EngineResult } from '../engine/types.js';
import { type Consumer, campaignUsages, committedPoints } from '../loyalty/points.store.js';
import { loadArticleGroups } from '../sortiment/article-groups.store.js';
import type { BasketTerminal, LoyaltyOut, RewardOut } from './basket.types.js';
import type { ParsedBasket } from './basket.parse.js';
import type { StoredBasket } from './stored-basket.js';

/**
 * What an upload keeps so that the grant can book it and a return can reverse it: the basket as
 * the engine saw it, the consumer, and the exact campaign and scheme versions that touched it.
 */
/**
 * What, besides the stored body, rebuilds the basket exactly as the engine saw it at the upload.
 * Null when no campaign or scheme touched the basket: then there is nothing to re-evaluate.
 */
export interface EngineInputs {
  readonly merchantCurrency: string;
  readonly timeZone: string;
  readonly outletId: number;
  readonly couponCodes: string[];
  readonly consumerKnown: boolean;
  /** The groups of the basket's articles that have any, as read from the sortiment at the upload. */
  readonly groups: [string, string[]][];
}

export interface EngineSnapshot {
  readonly inputs: EngineInputs | null;
  readonly consumer: Consumer | null;
  readonly campaigns: VersionRef[];
  readonly schemes: VersionRef[];
}

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

/**
 * Rewards and loyalty of an uploaded basket, from the merchant's live rules (cached per rules
 * version), the groups of its articles and the consumer's committed points and usages.
 */
export async function computeBasketRewards(
  { db, ruleSets }: Pick<BasketDeps, 'db' | 'ruleSets'>,
  unit: BasketTerminal,
  basket: ParsedBasket,
  identity: BasketIdentity,
  nowMs: number,
): Promise<BasketRewards> {
  const ruleSet = await ruleSets.get(unit.merchantId, unit.rulesVersion);
  const consumer = consumerOf(identity);
  const empty = ruleSet.campaignsById.size === 0 && ruleSet.schemes.length === 0;
  if (empty) {
    // No campaign and no scheme: nothing can apply, and there is nothing to re-evaluate later.
    return { rewards: [], loyalty: [], snapshot: { inputs: null, consumer, campaigns: [], schemes: [] } };
  }
  // The groups of the basket's articles, when a rule can ask for them.
  let groupsByPlu: Map<string, string[]> | undefined;
  const plus = basket.positions.map((p) => p.productId).filter((p): p is string => p !== null);
  if (ruleSet.usesGroups && unit.sortimentId !== null && plus.length > 0) {
    groupsByPlu = await loadArticleGroups(db, unit.merchantId, unit.sortimentId, plus);
  }
  const engineBasket = toEngineBasket(basket, {
    outletId: unit.outletId,
    channel: 'pos',
    couponCodes: identity.couponCodes,
    consumerKnown: consumer !== null,
    ...(groupsByPlu ? { groupsByPlu } : {}),
  });
  let state: ConsumerState | null = null;
  if (consumer !== null) {
    const schemeIds = ruleSet.schemes.map((s) => s.id);
    const [points, usages] = await Promise.all([
      committedPoints(db, unit.merchantId, consumer, schemeIds, nowMs),
      campaignUsages(db, unit.merchantId, consumer, ruleSet.usageLimitedCampaignIds),
    ]);
    state = { points, usages };
  }
  const result = evaluateBasket(ruleSet.index, ruleSet.schemes, engineBasket, state);
  const refs = refsOf(result, (kind, id) =>
    kind === 'campaign' ? (ruleSet.campaignsById.get(id)?.version ?? 0) : 0,
  );
  return {
    rewards: rewardsToWire(result, basket.exponent),
    loyalty: loyaltyToWire(result, basket.exponent),
    snapshot: {
      inputs:
        refs.campaigns.length > 0 || refs.schemes.length > 0
          ? {
              merchantCurrency: unit.currency,
              timeZone: unit.timeZone,
              outletId: unit.outletId,
              couponCodes: [...identity.couponCodes],
              consumerKnown: consumer !== null,
              groups: [...(groupsByPlu ?? new Map<string, string[]>())].filter(([, g]) => g.length > 0),
            }
          : null,
      consumer,
      ...refs,
    },
  };
}

/** The basket as the engine saw it at the upload, rebuilt from the stored basket and inputs. */
export function rebuildEngineBasket(basket: StoredBasket, inputs: EngineInputs): EngineBasket {
  return toEngineBasket(basket, {
    outletId: inputs.outletId,
    channel: 'pos',
    couponCodes: inputs.couponCodes,
    consumerKnown: inputs.consumerKnown,
    groupsByPlu: new Map(inputs.groups),
  });
}
