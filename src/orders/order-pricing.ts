import type { Kysely } from 'kysely';
import {
  type BudgetBooking,
  type BudgetReader,
  budgetLeft,
  campaignDiscount,
} from '../campaigns/campaign-budgets.js';
import type { EngineResult } from '../engine/types.js';
import { readBudgetUsage } from '../campaigns/campaign-budgets.store.js';
import type { RuleSetCache } from '../campaigns/live-rules.store.js';
import type { StoredArticle } from '../sortiment/article.js';
import { AppError } from '../shared/errors.js';
import { divRoundHalfAwayFromZero, parseDecimal, powerOfTen } from '../shared/money.js';
import type { Instant } from '../shared/time.js';
import type { DB } from '../store/schema.js';
import { type MenuSource, freshMenus } from './menu-cache.js';
import type { Db } from '../loyalty/consumer.js';
import type { Consumer } from '../loyalty/points.store.js';
import type { ConsumerState } from '../engine/types.js';
import type { TierBasisRef } from '../engine/tiers.js';
import { customerUsesByReference } from './order-customer.store.js';
import {
  type OrderLine,
  customerCampaignMayApply,
  evaluateOrder,
  orderCustomerState,
  orderEngineBasket,
  orderTierBases,
} from './order-campaigns.js';
import type { OrderCampaign, PricedOrder } from './order-model.js';
import { type PricingLine, discountsByPosition, parseRate, priceBasket } from './pricing.js';

/** What pricing needs of an order or a draft basket, as the wire read it. */
export interface PricingRequest {
  readonly merchantId: number;
  readonly currency: string;
  readonly menuId: number;
  /** 0 on premise (VatInPercent), 1 takeaway (TakeawayVatInPercent). */
  readonly consumptionMode: 0 | 1;
  readonly orderTime: Instant;
  readonly consumerKnown: boolean;
  /**
   * The order's customer when it is known before pricing (its profile: the quote, the separate
   * statements), to read their uses of campaigns with a usage limit and their tiers; null when the
   * order names none, or names one by `customerReference` (the batched writer).
   */
  readonly customer: Consumer | null;
  /**
   * The order's profileReference when its customer is not resolved before pricing (the batched
   * writer): an order a campaign with a usage limit per customer may reward (and none limited to
   * tiers) reads the customer it names and their uses in one statement (`customerProfileId`).
   */
  readonly customerReference?: { readonly text: string; readonly otpSha256: string } | null;
  /** The merchant's time zone: a tier's calendar period is the shop's. */
  readonly timeZone: string;
  /** Now: the period of a campaign's budget is the current one (as the grant books). */
  readonly nowMs: number;
  readonly positions: readonly { positionId: number; productPlu: string; quantity: number }[];
}

export interface PricingDeps {
  readonly db: Kysely<DB>;
  readonly ruleSets: RuleSetCache;
}

function positionError(
  name: 'unknownPlu' | 'duplicatePlu' | 'priceMissing' | 'vatRateMissing',
  p: { positionId: number; productPlu: string },
): AppError {
  return new AppError(name, `Position ${p.positionId}, PLU "${p.productPlu}".`, {
    details: { positionId: p.positionId, productPlu: p.productPlu },
  });
}

function untaggedPrice(article: StoredArticle, currency: string): number | null {
  const price = article.Prices.find((p) => p.CurrencyIso === currency && p.Tag === null);
  return price ? price.ValueMinor : null;
}

/** unit price times quantity, rounded half away from zero once. */
function lineGross(unitMinor: number, quantity: number): number {
  // A whole quantity whose product is a safe integer: the product itself, exact in numbers.
  if (Number.isSafeInteger(quantity)) {
    const product = unitMinor * quantity;
    if (Number.isSafeInteger(product)) return product === 0 ? 0 : product;
  }
  const q = parseDecimal(quantity);
  if (!q || q.scale > 3)
    throw new AppError('refused', 'quantity must be a number with at most three decimals.');
  return Number(divRoundHalfAwayFromZero(BigInt(unitMinor) * q.units, powerOfTen(q.scale)));
}

/**
 * Prices an order from the sortiment named by menuId and the merchant's campaigns of the checkout
 * channel (the same rule sets and engine as POS baskets). Refusals name the position.
 */

function nameOf(article: StoredArticle): string {
  return article.ExternalName[0]?.val ?? article.Name[0]?.val ?? article.PLU;
}

/** An order priced, and what it books of its campaigns' budgets. */
export interface OrderPricing {
  readonly priced: PricedOrder;
  /** What the order books of its campaigns' budgets, as read unlocked; empty: none applied. */
  readonly budgets: readonly BudgetBooking[];
  /** Whether a campaign was left out because its rewards did not fit what is left of its budget. */
  readonly budgetsHeldBack: boolean;
  /** The uses the order was given of campaigns with a usage limit per customer: what it books. */
  readonly usages: readonly OrderUsage[];
  /**
   * Whether the pricing depends on the customer's uses and tiers (the order names a customer and a
   * campaign of the channel checkout with a usage limit or limited to tiers may reward it): the
   * batched writer re-checks what it read under the customer's lock (`seenUses`, `seenTiers`); the
   * separate statements lock the customer and price again (`again`).
   */
  readonly readsCustomer: boolean;
  /** Whether a campaign limited to status tiers may reward the order (among `readsCustomer`'s). */
  readonly readsTiers: boolean;
  /**
   * The customer's uses of every campaign with a usage limit per customer as the pricing read them
   * (0 for none), by campaign id; null when it read none.
   */
  readonly seenUses: Readonly<Record<string, number>> | null;
  /** The customer the pricing read the uses of: `customer`'s, or the one `customerReference` named. */
  readonly customerProfileId: number | null;
  /**
   * The tier measures the pricing read, with the schemes' bases and the shop's time zone they were
   * read by; null when it read none.
   */
  readonly seenTiers: {
    readonly bases: readonly TierBasisRef[];
    readonly timeZone: string;
    readonly seen: Readonly<Record<string, number>>;
  } | null;
  /**
   * The order priced again from the same menu and rules, in `trx` (which holds the customer's
   * lock), on its campaigns' budgets as `read` reads them (the booking's lock) and the customer's
   * uses and tiers as `trx` reads them.
   */
  readonly again: (trx: Db, read: BudgetReader) => Promise<Omit<OrderPricing, 'again'>>;
}

/** A campaign with a usage limit per customer and the uses an order was given of it. */
export interface OrderUsage {
  readonly campaignId: number;
  readonly uses: number;
}

/** An order's line priced from its menu. */
interface PricedLine extends OrderLine {
  readonly rateText: string;
  readonly description: string;
}

/** `menus`: where the menu is read; afresh from the database unless the caller re-checks what it read. */
export async function priceOrder(
  deps: PricingDeps,
  req: PricingRequest,
  menus: MenuSource = freshMenus(deps.db),
): Promise<OrderPricing> {
  const duplicate = firstDuplicate(req.positions);
  if (duplicate !== undefined) throw positionError('duplicatePlu', duplicate);
  const menu = await menus.articles(
    req.merchantId,
    req.menuId,
    req.positions.map((p) => p.productPlu),
  );
  if (menu === null) throw new AppError('menuUnknown', `menuId ${req.menuId}.`);
  const { articles } = menu;
  const lines = req.positions.map((p): PricedLine => {
    const article = articles.get(p.productPlu);
    if (!article) throw positionError('unknownPlu', p);
    const unit = untaggedPrice(article, req.currency);
    if (unit === null) throw positionError('priceMissing', p);
    const rateText = req.consumptionMode === 0 ? article.VatInPercent : article.TakeawayVatInPercent;
    if (rateText === null || parseRate(rateText) === null) throw positionError('vatRateMissing', p);
    // Each field by name: an object spread followed by more fields cost some 10 µs per position in
    // this V8 (a new hidden class every time), most of the time the server spent pricing.
    return {
      positionId: p.positionId,
      productPlu: p.productPlu,
      quantity: p.quantity,
      unitMinor: unit,
      rateText,
      lineGrossMinor: lineGross(unit, p.quantity),
      description: nameOf(article),
    };
  });

  const ruleSet = await deps.ruleSets.get(req.merchantId, menu.rulesVersion);
  if (ruleSet.campaignsById.size === 0 || lines.length === 0) {
    const plain = {
      priced: priced(
        lines,
        lines.map(() => 0),
      ),
      budgets: [],
      budgetsHeldBack: false,
      usages: [],
      readsCustomer: false,
      readsTiers: false,
      seenUses: null,
      customerProfileId: null,
      seenTiers: null,
    };
    return { ...plain, again: () => Promise.resolve(plain) };
  }
  const groups = ruleSet.usesGroups
    ? await menus.groups(
        req.merchantId,
        req.menuId,
        lines.map((l) => l.productPlu),
      )
    : new Map<string, string[]>();
  const basket = orderEngineBasket(lines, groups, req.orderTime, req.consumerKnown);
  const readsCustomer = req.consumerKnown && customerCampaignMayApply(ruleSet, basket);
  const readsTiers = readsCustomer && customerCampaignMayApply(ruleSet, basket, 'tiers');
  const tierBases = readsTiers ? orderTierBases(ruleSet) : [];
  const evaluate = async (db: Db, read: BudgetReader) => {
    const { customer, customerReference } = req;
    let state: ConsumerState | null = null;
    let customerProfileId: number | null = null;
    if (readsCustomer && customer !== null) {
      state = await orderCustomerState(db, ruleSet, req.merchantId, customer, req.timeZone, req.nowMs);
      customerProfileId = customer.profileId ?? null;
    } else if (readsCustomer && customerReference) {
      const found = await customerUsesByReference(
        deps.db,
        req.merchantId,
        customerReference,
        ruleSet.usageLimitedCampaignIds,
        req.nowMs,
        readsTiers ? { bases: tierBases, timeZone: req.timeZone } : null,
      );
      if (found !== null) {
        state = {
          points: new Map(),
          usages: found.usages,
          ...(found.tierMeasures === null ? {} : { tierMeasures: found.tierMeasures }),
        };
        customerProfileId = found.profileId;
      }
    }
    const { result, booked, heldBack } = await evaluateOrder(ruleSet, basket, read, { customer: state });
    const discounts = discountsByPosition(
      lines,
      result.rewards.filter((r) => r.source === 'campaign'),
    );
    const campaigns = orderCampaigns(result);
    const limited = new Set(ruleSet.usageLimitedCampaignIds);
    let seenUses: Record<string, number> | null = null;
    let seenTiers: OrderPricing['seenTiers'] = null;
    if (state !== null) {
      seenUses = {};
      for (const id of ruleSet.usageLimitedCampaignIds) seenUses[String(id)] = state.usages.get(id) ?? 0;
      if (readsTiers) {
        const seen: Record<string, number> = {};
        for (const b of tierBases) seen[String(b.schemeId)] = state.tierMeasures?.get(b.schemeId) ?? 0;
        seenTiers = { bases: tierBases, timeZone: req.timeZone, seen };
      }
    }
    return {
      priced: priced(lines, discounts, campaigns),
      budgets: booked,
      budgetsHeldBack: heldBack.length > 0,
      usages: campaigns
        .filter((c) => limited.has(c.campaignId))
        .map((c) => ({ campaignId: c.campaignId, uses: c.uses })),
      readsCustomer,
      readsTiers,
      seenUses,
      customerProfileId,
      seenTiers,
    };
  };
  const first = await evaluate(deps.db, async (ids) =>
    (await readBudgetUsage(deps.db, req.merchantId, ids, req.nowMs)).map(budgetLeft),
  );
  return { ...first, again: evaluate };
}

/** The campaigns that gave the order a reward: their applications and discount. */
function orderCampaigns(result: EngineResult): OrderCampaign[] {
  return result.couponUsages
    .filter((u) => u.count > 0)
    .map((u) => ({
      campaignId: u.campaignId,
      name: result.rewards.find((r) => r.source === 'campaign' && r.couponId === u.campaignId)?.name ?? '',
      uses: u.count,
      discountMinor: campaignDiscount(result, u.campaignId),
    }))
    .filter((c) => c.discountMinor > 0);
}

/** The order's lines and their discounts priced: VAT, the total, the receipt's names. */
function priced(
  lines: readonly PricedLine[],
  discounts: readonly number[],
  campaigns: readonly OrderCampaign[] = [],
): PricedOrder {
  const pricing: PricingLine[] = lines.map((l, i) => ({
    positionId: l.positionId,
    productPlu: l.productPlu,
    quantity: l.quantity,
    lineGrossMinor: l.lineGrossMinor,
    discountMinor: discounts[i] ?? 0,
    rateText: l.rateText,
  }));
  const { positions, vats, totalGrossMinor } = priceBasket(pricing);
  return {
    positions,
    vats,
    totalGrossMinor,
    descriptions: descriptionsByPlu(lines),
    ...(campaigns.length > 0 ? { campaigns } : {}),
  };
}

/** The first position whose PLU a position before it has; compared in turn for a few positions. */
function firstDuplicate<P extends { productPlu: string }>(positions: readonly P[]): P | undefined {
  if (positions.length > 16) {
    const seen = new Set<string>();
    for (const p of positions) {
      if (seen.has(p.productPlu)) return p;
      seen.add(p.productPlu);
    }
    return undefined;
  }
  for (let i = 1; i < positions.length; i++) {
    const p = positions[i] as P;
    for (let j = 0; j < i; j++) if ((positions[j] as P).productPlu === p.productPlu) return p;
  }
  return undefined;
}

/**
 * The article's name per PLU, written field by field: Object.fromEntries over the lines cost
 * about a tenth of pricing a six-position order. A PLU "__proto__" would set the prototype by
 * assignment, so such an order takes Object.fromEntries, which defines the field.
 */
function descriptionsByPlu(
  lines: readonly { productPlu: string; description: string }[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of lines) {
    if (l.productPlu === '__proto__')
      return Object.fromEntries(lines.map((x) => [x.productPlu, x.description]));
    out[l.productPlu] = l.description;
  }
  return out;
}
