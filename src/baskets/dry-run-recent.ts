import type { ReasonCode } from '../engine/reasons.js';
import { AppError } from '../shared/errors.js';
import { minorToMajor } from '../shared/money.js';
import type { Deps } from '../store/deps.js';
import type { MerchantRef } from '../campaigns/rule.service.js';
import {
  type DryRunCaller,
  type DryRunRules,
  type ExplainedBasket,
  type DryRunRulesBody,
  dryRunRules,
  explainBasket,
} from './basket-dry-run.js';
import type { BasketBody } from './basket.types.js';
import { budgetsNow } from './basket-rewards.js';
import { draftBudgets, stackingOf } from './dry-run-budgets.js';
import { DRAFT_BASE, type Explanation, dryRunKey, explainResult } from './dry-run-explain.js';
import {
  customerCampaignMayApply,
  evaluateOrder,
  orderCustomerState,
  orderEngineBasket,
  orderInstant,
  storedOrderLines,
} from '../orders/order-campaigns.js';
import { loadArticleGroups } from '../sortiment/article-groups.store.js';
import { type RecentOrder, recentBaskets, recentOrders } from '../reports/recent-baskets.store.js';

/**
 * The dry run over the merchant's recent baskets (docs/decisions.md, "Why a campaign did not
 * apply"): each basket a till sent lately evaluated again, as the dry run evaluates one, under
 * today's campaigns with the drafts standing in; per campaign, in how many it applied, the
 * discount it gave, and why it did not in the others, grouped by reason and by the campaigns in
 * its way. Nothing is stored.
 */

/** A basket a till sent: where it came from, its body and query as sent, the consumer its upload found. */
export interface StoredBasket {
  /** Its Timestamp (ms) first: the purchases are evaluated newest first. */
  readonly key: readonly [number, string, string];
  readonly trackingUnitId: string;
  readonly basketId: string;
  readonly body: Record<string, unknown>;
  readonly consumerToken: string | null;
  readonly giftCardId: string | null;
  readonly profileId: number | null;
}

/** A purchase a reason names as its newest example: a till's basket or an online order. */
export type RecentExample =
  { trackingUnitId: string; basketId: string } | { orderId: string; basketId: string };

/** Why a campaign did not apply to some of the baskets: one reason and what stood in its way. */
export interface RecentReason {
  reasonCode: ReasonCode;
  blockedBy?: (number | string)[];
  tiers?: string[];
  unitsNeeded?: number;
  /** held_back_budget: the figures of the newest basket it held back. */
  budget?: { reward: number; left: number };
  /** In how many of the baskets and orders. */
  baskets: number;
  /** The newest of those baskets and orders, to open it. */
  example: RecentExample;
}

export interface RecentCampaign {
  campaignId: number | string;
  name: string;
  stacking?: string;
  /** In how many baskets and orders it applied; of them, online orders. */
  applied: number;
  appliedOrders: number;
  applications: number;
  discount: number;
  reasons: RecentReason[];
}

/** A loyalty scheme over the baskets: the points it would earn their customers. */
export interface RecentScheme {
  schemeId: number | string;
  name: string;
  /** The baskets in which it earned points. */
  baskets: number;
  points: number;
}

export interface RecentDryRunResponse {
  baskets: number;
  /** The online orders evaluated. */
  orders: number;
  skipped: number;
  /** The baskets that named a customer (only they earn points). */
  customers: number;
  campaigns: RecentCampaign[];
  schemes: RecentScheme[];
  rulesVersion: number;
}

/**
 * Each basket and online order evaluated under the same rules, newest first; a basket the dry run
 * refuses now is skipped.
 */
export async function dryRunRecent(
  deps: Deps,
  merchant: MerchantRef,
  body: DryRunRulesBody,
  baskets: readonly StoredBasket[],
  caller: DryRunCaller,
  orders: readonly RecentOrder[] = [],
): Promise<RecentDryRunResponse> {
  const rules = await dryRunRules(deps.db, merchant, body);
  const tally = new Tally(merchant.exponent);
  for (const [key, campaign] of rules.ruleSet.campaignsById)
    tally.campaign(dryRunKey(key), campaign.name, stackingOf(campaign).stacking);
  for (const scheme of rules.ruleSet.schemes) tally.scheme(dryRunKey(scheme.id), scheme.name);
  const explainOrder = orders.length > 0 ? await orderExplainer(deps, merchant, body, rules) : null;
  const purchases = [
    ...baskets.map((b) => ({ atMs: b.key[0], basket: b, order: null })),
    ...orders.map((o) => ({ atMs: Date.parse(o.priced.head.orderTimestamp), basket: null, order: o })),
  ].sort((x, y) => y.atMs - x.atMs);
  let skipped = 0;
  for (const { basket: b, order } of purchases) {
    if (order !== null && explainOrder !== null) {
      const { explanations, discountMinor } = await explainOrder(order);
      tally.purchase({ orderId: order.orderId, basketId: order.basketId }, explanations, discountMinor);
      continue;
    }
    if (b === null) continue;
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
    tally.basket(b, explained);
  }
  return {
    baskets: baskets.length - skipped,
    orders: orders.length,
    skipped,
    customers: tally.customers,
    campaigns: tally.result(),
    schemes: tally.schemeResult(),
    rulesVersion: rules.rulesVersion,
  };
}

/**
 * The run as both interfaces ask for it: the merchant's newest `limit` baskets (by their Timestamp)
 * and its newest `limit` online orders (by the time they were placed), default 50 of each.
 */
export async function dryRunRecentPurchases(
  deps: Deps,
  merchant: MerchantRef,
  { limit = 50, ...body }: DryRunRulesBody & { limit?: number },
  caller: DryRunCaller,
): Promise<RecentDryRunResponse> {
  const baskets = await recentBaskets(deps.db, merchant.id, { limit, after: null });
  const orders = await recentOrders(deps.db, merchant.id, limit);
  return dryRunRecent(deps, merchant, body, baskets.slice(0, limit), caller, orders);
}

/**
 * An online order evaluated again as its pricing evaluates it (src/orders/order-campaigns.ts): its
 * lines as priced then, the groups of its menu now, at its time on the shop's clock, under the
 * dry run's rules; a campaign with a budget while its reward fits what is left of the budget now
 * (the drafts' as the dry run reads them), and the customer's uses and tiers as they are now, as
 * for the tills' baskets.
 */
async function orderExplainer(
  { db, clock }: Deps,
  merchant: MerchantRef,
  body: DryRunRulesBody,
  rules: DryRunRules,
): Promise<(order: RecentOrder) => Promise<ReturnType<typeof explainResult>>> {
  const drafts = await draftBudgets(db, merchant, body, (i) => DRAFT_BASE + i + 1, clock.nowMs());
  const { budgeted, read } = budgetsNow(db, merchant.id, rules.ruleSet, drafts, clock.nowMs());
  const context = { ...rules, exponent: merchant.exponent };
  return async (order) => {
    const lines = storedOrderLines(order.priced);
    const groups =
      rules.ruleSet.usesGroups && lines.length > 0
        ? await loadArticleGroups(
            db,
            merchant.id,
            order.priced.head.menuId,
            lines.map((l) => l.productPlu),
          )
        : new Map<string, string[]>();
    const at = orderInstant(Date.parse(order.priced.head.orderTimestamp), merchant.timeZone);
    // As its pricing: a customer is known when the order named a profile.
    const basket = orderEngineBasket(lines, groups, at, order.priced.head.profileReference !== undefined);
    const customer = customerCampaignMayApply(rules.ruleSet, basket)
      ? await orderCustomerState(
          db,
          rules.ruleSet,
          merchant.id,
          { profileId: order.profileId },
          merchant.timeZone,
          clock.nowMs(),
        )
      : null;
    const { result, heldBack } = await evaluateOrder(rules.ruleSet, basket, read, {
      explain: true,
      budgeted,
      customer,
    });
    return explainResult(context, result, heldBack);
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

  private readonly schemes = new Map<number | string, RecentScheme>();
  customers = 0;

  constructor(private readonly exponent: number) {}

  scheme(key: number | string, name: string): void {
    if (!this.schemes.has(key)) this.schemes.set(key, { schemeId: key, name, baskets: 0, points: 0 });
  }

  campaign(key: number | string, name: string, stacking?: string): void {
    if (this.byCampaign.has(key)) return;
    this.byCampaign.set(key, {
      campaignId: key,
      name,
      ...(stacking === undefined ? {} : { stacking }),
      applied: 0,
      appliedOrders: 0,
      applications: 0,
      discountMinor: 0,
      reasons: new Map(),
    });
  }

  basket(b: StoredBasket, { answer, discountMinor, pointsEarned, customer }: ExplainedBasket): void {
    if (customer) this.customers += 1;
    for (const [key, points] of pointsEarned) {
      const scheme = this.schemes.get(key);
      if (scheme === undefined || points <= 0) continue;
      scheme.baskets += 1;
      scheme.points += points;
    }
    this.purchase(
      { trackingUnitId: b.trackingUnitId, basketId: b.basketId },
      answer.explanations,
      discountMinor,
    );
  }

  /** A basket's or an order's explanations: where each campaign applied, and why not. */
  purchase(
    example: RecentExample,
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
        if ('orderId' in example) c.appliedOrders += 1;
        c.applications += e.applications;
        c.discountMinor += discountMinor.get(e.campaignId) ?? 0;
      } else this.reason(c.reasons, example, e);
    }
    // A campaign the engine did not look at named no article of the purchase.
    for (const c of this.byCampaign.values()) {
      if (!seen.has(c.campaignId)) this.reason(c.reasons, example, { reasonCode: 'no_article_matches' });
    }
  }

  private reason(
    reasons: Map<string, RecentReason>,
    example: RecentExample,
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
      example,
    });
  }

  /** Drafts first, then the live campaigns by id; each one's reasons by how many baskets, most first. */
  result(): RecentCampaign[] {
    return [...this.byCampaign.values()]
      .sort((x, y) => draftsFirst(x.campaignId, y.campaignId))
      .map(({ discountMinor, reasons, ...c }) => ({
        ...c,
        discount: minorToMajor(discountMinor, this.exponent),
        reasons: [...reasons.values()].sort((x, y) => y.baskets - x.baskets),
      }));
  }

  /** Drafts first, then the live schemes by id. */
  schemeResult(): RecentScheme[] {
    return [...this.schemes.values()].sort((x, y) => draftsFirst(x.schemeId, y.schemeId));
  }
}

/** Keys in the answer's order: drafts (draft-1, draft-2 ...) first, then live ids ascending. */
function draftsFirst(x: number | string, y: number | string): number {
  if (typeof x === 'string' && typeof y === 'string') return x.localeCompare(y, 'en', { numeric: true });
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return typeof x === 'string' ? -1 : 1;
}
