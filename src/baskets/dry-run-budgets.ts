import { type BudgetLeft, type HeldBack, budgetLeft } from '../campaigns/campaign-budgets.js';
import { readBudgetUsage } from '../campaigns/campaign-budgets.store.js';
import { convertBudget, hasBudget } from '../campaigns/campaign-options.convert.js';
import { RuleDefinitionError } from '../campaigns/rule.convert.js';
import type { CampaignBody } from '../campaigns/rule.schemas.js';
import { type MerchantRef, invalidDefinition } from '../campaigns/rule.service.js';
import type { Campaign } from '../engine/types.js';
import { minorToMajor, minorToMajorText } from '../shared/money.js';
import type { Deps } from '../store/deps.js';

/**
 * Budgets and stacking in the dry run (docs/decisions.md, "Budgets at the upload and in the dry
 * run"): what is left of a draft's budgets, why a campaign was held back, how a campaign stacks.
 */

/**
 * What is left of the drafts' budgets, by the drafts' engine ids. A draft that stands in for the one
 * live campaign it replaces (the campaign form's dry run) starts from what that campaign's grants
 * used (of the period too when the period is the same); any other draft from nothing used.
 */
export async function draftBudgets(
  db: Deps['db'],
  merchant: MerchantRef,
  body: {
    campaigns?: CampaignBody[];
    replaces?: { campaigns?: number[] };
    includeLiveCampaigns?: boolean;
  },
  draftId: (index: number) => number,
  nowMs: number,
): Promise<Map<number, BudgetLeft>> {
  const out = new Map<number, BudgetLeft>();
  const drafts = body.campaigns ?? [];
  const replaced = body.replaces?.campaigns ?? [];
  const standsIn = drafts.length === 1 && replaced.length === 1 && body.includeLiveCampaigns !== false;
  for (const [i, draft] of drafts.entries()) {
    let limits;
    try {
      limits = convertBudget(draft, merchant.exponent);
    } catch (err) {
      if (err instanceof RuleDefinitionError) throw invalidDefinition(err, `campaigns[${i}].`);
      throw err;
    }
    if (!hasBudget(limits)) continue;
    const [used] = standsIn ? await readBudgetUsage(db, merchant.id, replaced, nowMs) : [];
    const samePeriod = used !== undefined && used.limits.budget_period === limits.budget_period;
    out.set(
      draftId(i),
      budgetLeft({
        campaignId: draftId(i),
        limits,
        totalUsedMinor: used?.totalUsedMinor ?? 0,
        redemptionsUsed: used?.redemptionsUsed ?? 0,
        periodStart: limits.budget_period === null ? null : samePeriod ? used.periodStart : 'current',
        periodUsedMinor: samePeriod ? used.periodUsedMinor : 0,
      }),
    );
  }
  return out;
}

/** The dry run's reason for a campaign its budget held back. */
export function heldBackReason(
  held: HeldBack,
  exponent: number,
): {
  reason: string;
  reasonCode: 'held_back_no_redemptions' | 'held_back_budget';
  budget?: { reward: number; left: number };
} {
  const s = held.shortfall;
  if ('redemptions' in s) {
    return { reason: 'held back by its budget: no redemptions left', reasonCode: 'held_back_no_redemptions' };
  }
  return {
    reason:
      `held back by its budget: its reward ${minorToMajorText(s.rewardMinor, exponent)} is more than ` +
      `the ${minorToMajorText(s.leftMinor, exponent)} left`,
    reasonCode: 'held_back_budget',
    budget: { reward: minorToMajor(s.rewardMinor, exponent), left: minorToMajor(s.leftMinor, exponent) },
  };
}

/** How a campaign stacks, for the dry run's explanation: absent without a setting. */
export function stackingOf(c: Campaign | undefined): { stacking?: string } {
  const s = c?.stacking;
  if (s === undefined || s === null) return {};
  return { stacking: s.mode === 'group' ? `group ${s.group}` : s.mode };
}
