import type { Campaign, LoyaltyScheme } from '../engine/types.js';
import { parseBasket } from './basket.parse.js';
import type { BasketBody, LoyaltyOut, RewardOut } from './basket.types.js';
import { AppError } from '../shared/errors.js';
import type { Deps } from '../store/deps.js';
import { type RewardPlace, evaluateBasketRewards } from './basket-rewards.js';
import { resolveBasketIdentity } from './basket-identity.js';
import { onlySortiment, outletSortiment, terminalPlacement } from './dry-run-till.store.js';
import {
  RuleDefinitionError,
  campaignToEngine,
  engineCampaign,
  schemeToEngine,
} from '../campaigns/rule.convert.js';
import type { CampaignBody, SchemeBody } from '../campaigns/rule.schemas.js';
import {
  type MerchantRef,
  checkOutlets,
  convertContext,
  invalidDefinition,
} from '../campaigns/rule.service.js';
import { type RuleSet, buildRuleSet, loadMerchantRules } from '../campaigns/live-rules.store.js';
import { draftBudgets } from './dry-run-budgets.js';
import { DRAFT_BASE, type Explanation, draftNumber, explainResult, isDraft } from './dry-run-explain.js';

/**
 * Dry run (docs/decisions.md, "Rewards engine and loyalty"): a merchant posts a basket and
 * campaigns or schemes that are not live yet and sees the rewards with the reason each campaign
 * did or did not apply. It is the till: the same evaluation as a basket upload
 * (`evaluateBasketRewards`), with the groups of the till's sortiment, the basket's consumer and
 * coupon codes as an upload finds them and the consumer's committed points; it only stores nothing.
 */

/** A dry run's request: the POS basket, drafts and the stand-ins for what an upload would read. */
export interface DryRunBody {
  basket: BasketBody;
  campaigns?: CampaignBody[];
  schemes?: SchemeBody[];
  includeLiveCampaigns?: boolean;
  /** The till the basket comes from: its outlet and sortiment. */
  trackingUnitId?: string;
  outletId?: number;
  channel?: 'pos' | 'checkout';
  /** As the upload's query: the consumer's card and the gift card. */
  consumerIdentToken?: string;
  giftCardId?: string;
  consumer?: {
    points?: Record<string, number>;
    usages?: Record<string, number>;
    tiers?: Record<string, string | null>;
  };
  groups?: Record<string, string[]>;
  /** Live campaigns and schemes the drafts stand in for (the one being edited). */
  replaces?: { campaigns?: number[]; schemes?: number[] };
}

export interface DryRunResponse {
  Rewards: RewardOut[];
  LoyaltyInfo: LoyaltyOut[];
  explanations: Explanation[];
  rulesVersion: number;
}

function convertDrafts<B, R>(
  drafts: readonly B[] | undefined,
  field: string,
  convert: (body: B, index: number) => R,
): R[] {
  return (drafts ?? []).map((body, i) => {
    try {
      return convert(body, i);
    } catch (err) {
      if (err instanceof RuleDefinitionError) throw invalidDefinition(err, `${field}[${i}].`);
      throw err;
    }
  });
}

/**
 * The stand-in consumer's tiers as measures: the threshold of the tier chosen per scheme, so the
 * consumer has exactly that tier before the basket (docs/decisions.md, "Status tiers"); null or a
 * scheme not named: no tier. A scheme without tiers or a name it does not define is refused.
 */
function chosenTiers(
  chosen: Record<string, string | null> | undefined,
  schemes: readonly LoyaltyScheme[],
): Map<number, number> {
  const field = 'consumer.tiers';
  const measures = new Map<number, number>();
  for (const [key, tierName] of Object.entries(chosen ?? {})) {
    const schemeId = ruleId(key, field);
    const tiers = schemes.find((s) => s.id === schemeId)?.tiers ?? [];
    if (tiers.length === 0) {
      throw new AppError('ruleInvalid', `${field} names ${key}, not a loyalty scheme with status tiers.`, {
        details: { field: `${field}.${key}` },
      });
    }
    if (tierName === null) {
      measures.set(schemeId, 0);
      continue;
    }
    const tier = tiers.find((t) => t.name.toLowerCase() === tierName.trim().toLowerCase());
    if (tier === undefined) {
      throw new AppError(
        'ruleInvalid',
        `${field}.${key} "${tierName}" is not a tier of the scheme (${tiers.map((t) => t.name).join(', ')}).`,
        { details: { field: `${field}.${key}` } },
      );
    }
    measures.set(schemeId, tier.threshold);
  }
  return measures;
}

/** A rule's id from a key of the stand-in consumer: a live rule's id or draft-N. */
function ruleId(key: string, field: string): number {
  const draft = /^draft-(\d+)$/i.exec(key);
  const id = draft ? DRAFT_BASE + Number(draft[1]) : /^\d+$/.test(key) ? Number(key) : Number.NaN;
  if (!Number.isSafeInteger(id)) {
    throw new AppError('ruleInvalid', `${field} keys must be rule ids or draft-N, not "${key}".`, {
      details: { field },
    });
  }
  return id;
}

function consumerMap(values: Record<string, number> | undefined, field: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const [key, value] of Object.entries(values ?? {})) out.set(ruleId(key, field), value);
  return out;
}

/**
 * The till a dry run stands for: a terminal's outlet and sortiment; an outlet alone takes the
 * sortiment of its terminal changed last that has one; neither takes no outlet and the merchant's
 * sortiment when it has exactly one (docs/decisions.md, "Campaign and loyalty-scheme forms").
 */
async function dryRunPlace(
  db: Deps['db'],
  merchantId: number,
  timeZone: string,
  body: DryRunBody,
): Promise<RewardPlace> {
  if (body.trackingUnitId !== undefined) {
    const unit = await terminalPlacement(db, merchantId, body.trackingUnitId);
    if (unit === null) {
      throw new AppError('ruleInvalid', 'trackingUnitId is not a terminal of this merchant.', {
        details: { field: 'trackingUnitId' },
      });
    }
    if (body.outletId !== undefined && body.outletId !== unit.outletId) {
      throw new AppError('ruleInvalid', "outletId is not the outlet of the terminal's trackingUnitId.", {
        details: { field: 'outletId' },
      });
    }
    return { merchantId, timeZone, ...unit };
  }
  if (body.outletId !== undefined) {
    await checkOutlets(db, merchantId, [body.outletId], 'outletId');
    return {
      merchantId,
      timeZone,
      outletId: body.outletId,
      sortimentId: await outletSortiment(db, merchantId, body.outletId),
    };
  }
  return { merchantId, timeZone, outletId: null, sortimentId: await onlySortiment(db, merchantId) };
}

/**
 * Who asks for a dry run: the failed one-time-password lookups of its basket count against this
 * subject's limit and the merchant's, as a till's do against its own.
 */
export interface DryRunCaller {
  readonly subject: string;
}

/** The part of a dry run's request that makes its rules: the drafts and what they stand in for. */
export type DryRunRulesBody = Pick<DryRunBody, 'campaigns' | 'schemes' | 'includeLiveCampaigns' | 'replaces'>;

/** What a dry run evaluates its baskets under: the live rules, the drafts standing in. */
export interface DryRunRules {
  readonly rulesVersion: number;
  readonly ruleSet: RuleSet;
  readonly drafts: readonly Campaign[];
  readonly names: ReadonlyMap<number, string>;
}

/** The drafts converted and checked, and the merchant's live rules with them in their place. */
export async function dryRunRules(
  db: Deps['db'],
  merchant: MerchantRef,
  body: DryRunRulesBody,
): Promise<DryRunRules> {
  const ctx = convertContext(merchant);
  // A draft with unique codes has none yet: no basket presents one of its codes.
  const drafts: Campaign[] = convertDrafts(body.campaigns, 'campaigns', (b: CampaignBody, i) =>
    engineCampaign(campaignToEngine(b, ctx), DRAFT_BASE + i + 1, 0),
  );
  const draftSchemes: LoyaltyScheme[] = convertDrafts(body.schemes, 'schemes', (b: SchemeBody, i) => ({
    ...schemeToEngine(b, ctx),
    id: DRAFT_BASE + i + 1,
    version: 0,
  }));
  for (const [i, d] of drafts.entries())
    await checkOutlets(db, merchant.id, d.outletIds, `campaigns[${i}].outletIds`);
  for (const [i, s] of draftSchemes.entries())
    await checkOutlets(db, merchant.id, s.outletIds, `schemes[${i}].outletIds`);

  const live =
    body.includeLiveCampaigns === false
      ? { rulesVersion: 0, campaigns: [], schemes: [] }
      : await loadMerchantRules(db, merchant.id);
  // The campaign being edited stands in for its live version.
  const replaced = new Set(body.replaces?.campaigns ?? []);
  const replacedSchemes = new Set(body.replaces?.schemes ?? []);
  const ruleSet = buildRuleSet({
    ...live,
    rulesVersion: live.rulesVersion,
    campaigns: [...live.campaigns.filter((c) => !replaced.has(c.id)), ...drafts],
    schemes: [...live.schemes.filter((s) => !replacedSchemes.has(s.id)), ...draftSchemes],
  });
  const names = new Map([...ruleSet.campaignsById.values()].map((c) => [c.id, c.name]));
  return { rulesVersion: live.rulesVersion, ruleSet, drafts, names };
}

export async function dryRun(
  deps: Deps,
  merchant: MerchantRef,
  body: DryRunBody,
  caller: DryRunCaller = { subject: 'operator' },
): Promise<DryRunResponse> {
  const rules = await dryRunRules(deps.db, merchant, body);
  return (await explainBasket(deps, merchant, rules, body, caller)).answer;
}

/** One basket of a dry run: the answer, and the figures the dry run over recent baskets adds up. */
export interface ExplainedBasket {
  readonly answer: DryRunResponse;
  /** The discount each campaign gave, minor units, by its key in the answer. */
  readonly discountMinor: ReadonlyMap<number | string, number>;
  /** The points each scheme earned the basket's customer, by the scheme's key (its id or draft-N). */
  readonly pointsEarned: ReadonlyMap<number | string, number>;
  /** Whether the basket names a customer (a card or a one-time password). */
  readonly customer: boolean;
}

/**
 * On the channel checkout an online order is priced from campaigns alone, with the customer's uses
 * and tiers but without their points (docs/decisions.md, "The dry run on the channel checkout"): a
 * stand-in for the points, and draft schemes, would change nothing, so they are refused rather
 * than ignored.
 */
function refuseWhatOrdersDoNotRead(body: DryRunBody): void {
  if (body.channel !== 'checkout') return;
  if (body.consumer?.points !== undefined && Object.keys(body.consumer.points).length > 0) {
    throw new AppError(
      'refused',
      'consumer.points does nothing on the channel checkout: an online order neither earns nor redeems points.',
      { details: { field: 'consumer.points' } },
    );
  }
  if (body.schemes !== undefined && body.schemes.length > 0) {
    throw new AppError(
      'refused',
      "schemes do nothing on the channel checkout: loyalty schemes earn and redeem on the tills' baskets only.",
      { details: { field: 'schemes' } },
    );
  }
}

/** One basket of a dry run under its rules. */
export async function explainBasket(
  { db, clock }: Deps,
  merchant: MerchantRef,
  { rulesVersion, ruleSet, drafts, names }: DryRunRules,
  body: DryRunBody,
  caller: DryRunCaller,
  stored?: { profileId: number | null },
): Promise<ExplainedBasket> {
  const nowMs = clock.nowMs();
  refuseWhatOrdersDoNotRead(body);
  const parsed = parseBasket(body.basket as BasketBody, merchant.currency, merchant.timeZone);
  const place = await dryRunPlace(db, merchant.id, merchant.timeZone, body);

  // The basket's consumer and coupon codes exactly as an upload finds them; a stored basket's
  // consumer as its upload found it (its one-time password has expired since).
  const found = await resolveBasketIdentity(
    db,
    { merchantId: merchant.id, subject: `dry-run:${caller.subject}`, storedBasket: stored !== undefined },
    {
      consumerIdentToken: body.consumerIdentToken,
      giftCardId: body.giftCardId,
      contextIdentifiers: parsed.contextIdentifiers,
    },
    nowMs,
  );
  const identity = { ...found, profileId: found.profileId ?? stored?.profileId ?? null };
  const wireId = (id: number) => (isDraft(id) ? -draftNumber(id) : id);
  const evaluated = await evaluateBasketRewards(db, ruleSet, place, parsed, identity, nowMs, {
    explain: true,
    wireId,
    channel: body.channel ?? 'pos',
    ...(body.consumer === undefined
      ? {}
      : {
          consumerState: {
            points: consumerMap(body.consumer.points, 'consumer.points'),
            usages: consumerMap(body.consumer.usages, 'consumer.usages'),
            tierMeasures: chosenTiers(body.consumer.tiers, ruleSet.schemes),
          },
        }),
    ...(body.groups === undefined ? {} : { extraGroups: new Map(Object.entries(body.groups)) }),
    draftBudgets: await draftBudgets(db, merchant, body, (i) => DRAFT_BASE + i + 1, nowMs),
  });
  const { explanations, discountMinor, pointsEarned } = explainResult(
    { ruleSet, drafts, names, exponent: merchant.exponent },
    evaluated.result,
    evaluated.heldBack,
  );
  return {
    answer: { Rewards: evaluated.rewards, LoyaltyInfo: evaluated.loyalty, explanations, rulesVersion },
    discountMinor,
    pointsEarned,
    customer: evaluated.consumer !== null,
  };
}
