import {
  type BudgetBooking,
  type BudgetReader,
  type HeldBack,
  fitReadBudgets,
} from '../campaigns/campaign-budgets.js';
import { type RuleSet, indexWithout } from '../campaigns/live-rules.store.js';
import { evaluateBasket } from '../engine/index.js';
import type { CampaignIndex } from '../engine/campaign-index.js';
import type { TierBasisRef } from '../engine/tiers.js';
import { anySelectorMatches, selectorMatches } from '../engine/selector.js';
import type { Campaign, ConsumerState, EngineBasket, EnginePosition, EngineResult } from '../engine/types.js';
import type { Db } from '../loyalty/consumer.js';
import { type Consumer, consumerHoldings } from '../loyalty/points.store.js';
import { divRoundHalfAwayFromZero, parseDecimal, powerOfTen } from '../shared/money.js';
import { type Instant, zoneOffsetMinutes } from '../shared/time.js';
import type { StoredOrder } from './order.store.js';

/**
 * The campaigns of a checkout order (docs/decisions.md, "Pricing and VAT"): its lines as the
 * engine reads them and their evaluation, one rule for the order's pricing and for the dry run
 * over the recent orders.
 */

/** A line of an order as its campaigns are evaluated on it: priced from the menu. */
export interface OrderLine {
  readonly positionId: number;
  readonly productPlu: string;
  readonly quantity: number;
  readonly unitMinor: number;
  readonly lineGrossMinor: number;
}

/**
 * An order's time as its campaigns read it: on the shop's wall clock, whatever offset the app wrote
 * it in (UTC in the interface's document), since a campaign's schedule is the shop's hours.
 */
export function orderInstant(utcMs: number, timeZone: string): Instant {
  return { utcMs, offsetMinutes: zoneOffsetMinutes(timeZone, utcMs) };
}

/** The order as the engine reads it: the checkout channel, no outlet, no coupon codes. */
export function orderEngineBasket(
  lines: readonly OrderLine[],
  groups: ReadonlyMap<string, readonly string[]>,
  orderTime: Instant,
  consumerKnown: boolean,
): EngineBasket {
  const positions: EnginePosition[] = lines.map((l) => {
    const whole = Number.isInteger(l.quantity);
    return {
      positionId: l.positionId,
      productId: l.productPlu,
      groupIds: [...(groups.get(l.productPlu) ?? [])],
      // A fractional quantity (weighed goods) takes part in value rules only, as kg does.
      unit: whole ? 0 : 1,
      pieces: whole ? l.quantity : 0,
      unitPriceMinor: l.unitMinor,
      lineGrossMinor: l.lineGrossMinor,
      hasDiscounts: false,
      orderTime: null,
    };
  });
  return {
    timestamp: orderTime,
    hasDiscounts: false,
    outletId: null,
    channel: 'checkout',
    couponCodes: [],
    consumerKnown,
    positions,
  };
}

/**
 * The order's campaigns: loyalty schemes earn and redeem on granted POS baskets, so an order takes
 * campaigns only. A campaign with a budget gives the order a reward only while it fits what is left
 * of the budget, whole, as the grant of a till's basket (docs/decisions.md, "A campaign with a budget
 * and online orders"): `budgets` reads what is left, unlocked to price, locked to book.
 * `budgeted`: the campaigns with a budget, the rule set's unless given (the dry run adds its drafts').
 * `customer`: the customer's uses of campaigns with a usage limit and their tier measures
 * (orderCustomerState), null when the order names none or the rule set has no such campaign
 * (docs/decisions.md, "Usage limits and status tiers on online orders").
 */
export async function evaluateOrder(
  ruleSet: RuleSet,
  basket: EngineBasket,
  budgets: BudgetReader,
  options: {
    readonly explain?: boolean;
    readonly budgeted?: ReadonlySet<number>;
    readonly customer?: ConsumerState | null;
  } = {},
): Promise<{
  readonly result: EngineResult;
  readonly heldBack: readonly HeldBack[];
  /** What the order books of its campaigns' budgets. */
  readonly booked: readonly BudgetBooking[];
}> {
  const explain = options.explain === true;
  const customer = options.customer ?? null;
  // The schemes a campaign is limited to the tiers of, only to name the customer's tier there: an
  // order's customer holds no points in its evaluation, and what the schemes would earn is dropped.
  const tierSchemes =
    customer === null || ruleSet.index.tierSchemeIds.size === 0
      ? []
      : ruleSet.schemes.filter((s) => ruleSet.index.tierSchemeIds.has(s.id));
  const run = (index: CampaignIndex): EngineResult => {
    const result = evaluateBasket(index, tierSchemes, basket, customer, { explain });
    if (tierSchemes.length === 0) return result;
    return { ...result, rewards: result.rewards.filter((r) => r.source === 'campaign'), loyalty: [] };
  };
  const first = run(ruleSet.index);
  const budgeted = options.budgeted ?? ruleSet.budgetedCampaignIds;
  if (budgeted.size === 0) return { result: first, heldBack: [], booked: [] };
  return fitReadBudgets(
    (without) => (without.size === 0 ? first : run(indexWithout(ruleSet, without))),
    budgeted,
    budgets,
  );
}

/**
 * Whether a campaign with a usage limit per customer or limited to tiers may reward the order, read
 * from the campaigns' definitions alone: valid at its time, for no outlet and no coupon code, a bill
 * campaign or one whose articles are among the order's. One that may makes the order's pricing read
 * its customer and its booking lock them; an order none of them may reward is priced the same
 * whoever its customer is. `only: 'tiers'`: whether one limited to tiers may.
 */
export function customerCampaignMayApply(
  ruleSet: RuleSet,
  basket: EngineBasket,
  only: 'tiers' | 'any' = 'any',
): boolean {
  const at = basket.timestamp.utcMs;
  return ruleSet.orderCustomerCampaigns.some(
    (c) => (only === 'any' || (c.tiers ?? null) !== null) && mayApply(c, basket, at),
  );
}

function mayApply(c: Campaign, basket: EngineBasket, at: number): boolean {
  return (
    c.outletIds === null &&
    c.couponCode === null &&
    (c.validFromMs === null || at >= c.validFromMs) &&
    (c.validToMs === null || at < c.validToMs) &&
    (c.type === 'bill' ||
      basket.positions.some((p) =>
        c.type === 'combination'
          ? c.combination.some((part) => selectorMatches(part.selector, p))
          : anySelectorMatches(c.products, p),
      ))
  );
}

/** The bases of the schemes whose tiers a campaign is limited to: the measures an order reads. */
export function orderTierBases(ruleSet: RuleSet): TierBasisRef[] {
  return ruleSet.tierBases.filter((b) => ruleSet.index.tierSchemeIds.has(b.schemeId));
}

/**
 * What an online order's pricing reads of its customer (docs/decisions.md, "Usage limits and status
 * tiers on online orders"): their uses of the campaigns with a usage limit per customer, at the
 * tills and in online orders, and their measures in the schemes whose tiers a campaign is limited
 * to; never their points, which an order neither earns nor redeems. `db` a transaction that holds
 * the customer's lock to book.
 */
export async function orderCustomerState(
  db: Db,
  ruleSet: RuleSet,
  merchantId: number,
  customer: Consumer,
  timeZone: string,
  nowMs: number,
): Promise<ConsumerState> {
  const bases = orderTierBases(ruleSet);
  const held = await consumerHoldings(
    db,
    merchantId,
    customer,
    [],
    ruleSet.usageLimitedCampaignIds,
    nowMs,
    bases.length > 0 ? { bases, timeZone } : null,
  );
  return {
    points: new Map(),
    usages: held.usages,
    ...(held.tierMeasures === undefined ? {} : { tierMeasures: held.tierMeasures }),
  };
}

/**
 * The lines of a stored order as it was priced: its menu's prices then. A line stores its gross; a
 * whole quantity's unit price is that divided by it, exactly; a weighed one's the gross per unit,
 * rounded half away from zero (the engine reads a weighed line's gross).
 */
export function storedOrderLines(order: StoredOrder): OrderLine[] {
  return order.priced.positions.map((p) => {
    const q = parseDecimal(p.quantity);
    const unitMinor =
      Number.isInteger(p.quantity) && p.quantity !== 0
        ? p.lineGrossMinor / p.quantity
        : q === null || q.units === 0n
          ? 0
          : Number(divRoundHalfAwayFromZero(BigInt(p.lineGrossMinor) * powerOfTen(q.scale), q.units));
    return {
      positionId: p.positionId,
      productPlu: p.productPlu,
      quantity: p.quantity,
      unitMinor,
      lineGrossMinor: p.lineGrossMinor,
    };
  });
}
