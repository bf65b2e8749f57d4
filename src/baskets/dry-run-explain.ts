import type { HeldBack } from '../campaigns/campaign-budgets.js';
import type { RuleSet } from '../campaigns/live-rules.store.js';
import { type ReasonCode, reasonCode } from '../engine/reasons.js';
import type { Campaign, EngineResult } from '../engine/types.js';
import { heldBackReason, stackingOf } from './dry-run-budgets.js';

/**
 * The dry run's explanations of one evaluation (docs/decisions.md, "Why a campaign did not
 * apply"), a till's basket's or an online order's: each campaign's reason as a code, what stood in
 * its way, and the figures the dry run over recent purchases adds up.
 */

/** One campaign of a dry run's answer: whether it applied, and why not. */
export interface Explanation {
  campaignId: number | string;
  name: string;
  applied: boolean;
  applications: number;
  reason: string;
  reasonCode: ReasonCode;
  blockedBy?: (number | string)[];
  tiers?: string[];
  unitsNeeded?: number;
  budget?: { reward: number; left: number };
  stacking?: string;
  heldBackByBudget?: boolean;
}

/** Drafts get engine ids above every stored id (they would get the next ids once created). */
export const DRAFT_BASE = 2 ** 52;
export const isDraft = (engineId: number) => engineId > DRAFT_BASE;
export const draftNumber = (engineId: number) => engineId - DRAFT_BASE;

/** A campaign's key in the dry run's answer: its id, or draft-N. */
export const dryRunKey = (engineId: number): number | string =>
  isDraft(engineId) ? `draft-${draftNumber(engineId)}` : engineId;

/** What an evaluation is explained with: the rules it ran under. */
export interface ExplainContext {
  readonly ruleSet: RuleSet;
  readonly drafts: readonly Campaign[];
  readonly names: ReadonlyMap<number, string>;
  /** Decimal places of the merchant's currency. */
  readonly exponent: number;
}

/** The explanations of one evaluation, and each campaign's discount and each scheme's points in it. */
export function explainResult(
  { ruleSet, drafts, names, exponent }: ExplainContext,
  result: EngineResult,
  heldBack: readonly HeldBack[],
): {
  explanations: Explanation[];
  discountMinor: Map<number | string, number>;
  pointsEarned: Map<number | string, number>;
} {
  const explained = new Set(result.explanations.map((e) => e.campaignId));
  const explanations: Explanation[] = result.explanations.map((e) => {
    const code = reasonCode(e.reason);
    const campaign = ruleSet.campaignsById.get(e.campaignId);
    return {
      campaignId: dryRunKey(e.campaignId),
      name: names.get(e.campaignId) ?? '',
      applied: e.applied,
      applications: e.applications,
      reason: e.reason,
      reasonCode: code,
      ...(e.blockedBy === undefined ? {} : { blockedBy: e.blockedBy.map(dryRunKey) }),
      ...(code === 'tier_not_held' && campaign?.tiers ? { tiers: [...campaign.tiers.names] } : {}),
      ...(code === 'too_few_units' && campaign ? { unitsNeeded: campaign.buy + campaign.get } : {}),
      ...stackingOf(campaign),
    };
  });
  // A campaign its budget holds back is evaluated no further: say why (docs/decisions.md, "Budgets").
  for (const held of heldBack) {
    const at = explanations.findIndex((e) => e.campaignId === dryRunKey(held.campaignId));
    const entry = {
      campaignId: dryRunKey(held.campaignId),
      name: names.get(held.campaignId) ?? '',
      applied: false,
      applications: 0,
      ...heldBackReason(held, exponent),
      ...stackingOf(ruleSet.campaignsById.get(held.campaignId)),
      heldBackByBudget: true,
    };
    if (at >= 0) explanations[at] = entry;
    else explanations.push(entry);
  }
  // A draft the engine never looked at named no article (nor group) of the basket: say so.
  for (const d of drafts) {
    if (explained.has(d.id) || heldBack.some((h) => h.campaignId === d.id)) continue;
    explanations.push({
      campaignId: `draft-${draftNumber(d.id)}`,
      name: d.name,
      applied: false,
      applications: 0,
      reason: 'no article of the basket matches its products',
      reasonCode: 'no_article_matches',
    });
  }

  const discountMinor = new Map<number | string, number>();
  for (const r of result.rewards) {
    if (r.source !== 'campaign') continue;
    const key = dryRunKey(r.couponId);
    discountMinor.set(key, (discountMinor.get(key) ?? 0) + r.grossRewardMinor);
  }
  const pointsEarned = new Map<number | string, number>();
  for (const l of result.loyalty) {
    const key = dryRunKey(l.schemeId);
    pointsEarned.set(key, (pointsEarned.get(key) ?? 0) + l.earnedPoints);
  }
  return { explanations, discountMinor, pointsEarned };
}
