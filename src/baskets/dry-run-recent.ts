import type { ReasonCode } from '../engine/reasons.js';
import { AppError } from '../shared/errors.js';
import { minorToMajor } from '../shared/money.js';
import type { Deps } from '../store/deps.js';
import type { MerchantRef } from '../campaigns/rule.service.js';
import {
  type DryRunCaller,
  type DryRunResponse,
  type DryRunRulesBody,
  dryRunKey,
  dryRunRules,
  explainBasket,
} from './basket-dry-run.js';
import type { BasketBody } from './basket.types.js';
import { stackingOf } from './dry-run-budgets.js';

/**
 * The dry run over the merchant's recent baskets (docs/decisions.md, "Why a campaign did not
 * apply"): each basket a till sent lately evaluated again, as the dry run evaluates one, under
 * today's campaigns with the drafts standing in; per campaign, in how many it applied, the
 * discount it gave, and why it did not in the others, grouped by reason and by the campaigns in
 * its way. Nothing is stored.
 */

/** A basket a till sent: where it came from, its body and query as sent, the consumer its upload found. */
export interface StoredBasket {
  readonly trackingUnitId: string;
  readonly basketId: string;
  readonly body: Record<string, unknown>;
  readonly consumerToken: string | null;
  readonly giftCardId: string | null;
  readonly profileId: number | null;
}

type Explanation = DryRunResponse['explanations'][number];

/** Why a campaign did not apply to some of the baskets: one reason and what stood in its way. */
export interface RecentReason {
  reasonCode: ReasonCode;
  blockedBy?: (number | string)[];
  tiers?: string[];
  unitsNeeded?: number;
  /** held_back_budget: the figures of the newest basket it held back. */
  budget?: { reward: number; left: number };
  baskets: number;
  /** The newest of those baskets, to try it alone. */
  example: { trackingUnitId: string; basketId: string };
}

export interface RecentCampaign {
  campaignId: number | string;
  name: string;
  stacking?: string;
  applied: number;
  applications: number;
  discount: number;
  reasons: RecentReason[];
}

export interface RecentDryRunResponse {
  baskets: number;
  skipped: number;
  campaigns: RecentCampaign[];
  rulesVersion: number;
}

/** Each basket evaluated under the same rules; a basket the dry run refuses now is skipped. */
export async function dryRunRecent(
  deps: Deps,
  merchant: MerchantRef,
  body: DryRunRulesBody,
  baskets: readonly StoredBasket[],
  caller: DryRunCaller,
): Promise<RecentDryRunResponse> {
  const rules = await dryRunRules(deps.db, merchant, body);
  const tally = new Tally(merchant.exponent);
  for (const [key, campaign] of rules.ruleSet.campaignsById)
    tally.campaign(dryRunKey(key), campaign.name, stackingOf(campaign).stacking);
  let skipped = 0;
  for (const b of baskets) {
    let explained;
    try {
      explained = await explainBasket(
        deps,
        merchant,
        rules,
        {
          ...body,
          basket: b.body as unknown as BasketBody,
          trackingUnitId: b.trackingUnitId,
          ...(b.consumerToken === null ? {} : { consumerIdentToken: b.consumerToken }),
          ...(b.giftCardId === null ? {} : { giftCardId: b.giftCardId }),
        },
        caller,
        { profileId: b.profileId },
      );
    } catch (err) {
      // Its till removed since, a card of it locked: the basket cannot be tried again as it was.
      if (err instanceof AppError) {
        skipped += 1;
        continue;
      }
      throw err;
    }
    tally.basket(b, explained.answer.explanations, explained.discountMinor);
  }
  return {
    baskets: baskets.length - skipped,
    skipped,
    campaigns: tally.result(),
    rulesVersion: rules.rulesVersion,
  };
}

/** The baskets' explanations added up per campaign; the reasons most frequent first. */
class Tally {
  private readonly byCampaign = new Map<
    number | string,
    Omit<RecentCampaign, 'discount' | 'reasons'> & {
      discountMinor: number;
      reasons: Map<string, RecentReason>;
    }
  >();

  constructor(private readonly exponent: number) {}

  campaign(key: number | string, name: string, stacking?: string): void {
    if (this.byCampaign.has(key)) return;
    this.byCampaign.set(key, {
      campaignId: key,
      name,
      ...(stacking === undefined ? {} : { stacking }),
      applied: 0,
      applications: 0,
      discountMinor: 0,
      reasons: new Map(),
    });
  }

  basket(
    b: StoredBasket,
    explanations: readonly Explanation[],
    discountMinor: ReadonlyMap<number | string, number>,
  ): void {
    const seen = new Set<number | string>();
    for (const e of explanations) {
      seen.add(e.campaignId);
      this.campaign(e.campaignId, e.name);
      const c = this.byCampaign.get(e.campaignId);
      if (c === undefined) continue;
      if (e.applied) {
        c.applied += 1;
        c.applications += e.applications;
        c.discountMinor += discountMinor.get(e.campaignId) ?? 0;
      } else this.reason(c.reasons, b, e);
    }
    // A campaign the engine did not look at named no article of the basket.
    for (const c of this.byCampaign.values()) {
      if (!seen.has(c.campaignId)) this.reason(c.reasons, b, { reasonCode: 'no_article_matches' });
    }
  }

  private reason(
    reasons: Map<string, RecentReason>,
    b: StoredBasket,
    e: Pick<Explanation, 'reasonCode' | 'blockedBy' | 'tiers' | 'unitsNeeded' | 'budget'>,
  ): void {
    const key = `${e.reasonCode} ${(e.blockedBy ?? []).join(' ')}`;
    const known = reasons.get(key);
    if (known !== undefined) {
      known.baskets += 1;
      return;
    }
    reasons.set(key, {
      reasonCode: e.reasonCode,
      ...(e.blockedBy === undefined ? {} : { blockedBy: e.blockedBy }),
      ...(e.tiers === undefined ? {} : { tiers: e.tiers }),
      ...(e.unitsNeeded === undefined ? {} : { unitsNeeded: e.unitsNeeded }),
      ...(e.budget === undefined ? {} : { budget: e.budget }),
      baskets: 1,
      example: { trackingUnitId: b.trackingUnitId, basketId: b.basketId },
    });
  }

  /** Drafts first, then the live campaigns by id; each one's reasons by how many baskets, most first. */
  result(): RecentCampaign[] {
    const draftsFirst = (x: number | string, y: number | string): number =>
      typeof x === typeof y
        ? typeof x === 'number'
          ? x - (y as number)
          : String(x).localeCompare(String(y), 'en', { numeric: true })
        : typeof x === 'string'
          ? -1
          : 1;
    return [...this.byCampaign.values()]
      .sort((x, y) => draftsFirst(x.campaignId, y.campaignId))
      .map(({ discountMinor, reasons, ...c }) => ({
        ...c,
        discount: minorToMajor(discountMinor, this.exponent),
        reasons: [...reasons.values()].sort((x, y) => y.baskets - x.baskets),
      }));
  }
}
