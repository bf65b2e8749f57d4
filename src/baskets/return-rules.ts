import type { RewardLine } from '../engine/types.js';
import { type Decimal, divRoundHalfAwayFromZero, parseDecimal, powerOfTen } from '../shared/money.js';
import { prorate } from '../shared/prorate.js';
import type { GrantBooking, ReturnRequest, StoredReturn } from './basket-model.js';
import type { ReturnBody, ReturnResponse } from './basket.types.js';
import { decimalText } from './stored-basket.js';

/**
 * The return rules as pure functions (docs/decisions.md, "Returns"), in the shape of the
 * ledger's posting rules: the facts come in (the request, the earlier returns, what was sold and
 * what the grant booked), the decision comes out, and refusals are values that the use case
 * turns into error ids. Nothing here reads a clock or a database.
 *
 * Every return stores only its own increments; the state after any number of returns is their sum.
 * The cumulative amounts (points due back, reward value refunded) are always computed from the
 * total returned so far and the increment is the difference to what earlier returns booked, so
 * rounding never drifts and a full return reverses the basket exactly.
 */

// ---- exact decimals -------------------------------------------------------------------------

function atScale(d: Decimal, scale: number): bigint {
  return d.units * powerOfTen(scale - d.scale);
}

function addDecimal(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: atScale(a, scale) + atScale(b, scale), scale };
}

function compareDecimal(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale);
  const x = atScale(a, scale);
  const y = atScale(b, scale);
  return x === y ? 0 : x < y ? -1 : 1;
}

const ZERO: Decimal = { units: 0n, scale: 0 };

/** value × returned / sold, rounded half away from zero: the returned share of a minor amount. */
function shareMinor(valueMinor: number, returned: Decimal, sold: Decimal): number {
  if (compareDecimal(returned, sold) >= 0) return valueMinor;
  const n = BigInt(valueMinor) * returned.units * powerOfTen(sold.scale);
  const d = sold.units * powerOfTen(returned.scale);
  return Number(divRoundHalfAwayFromZero(n, d));
}

// ---- the pure plan --------------------------------------------------------------------------

export interface SoldPosition {
  readonly positionId: number;
  readonly amount: Decimal;
  readonly lineGrossMinor: number;
}

export interface ReturnPlan {
  /** Every position fully returned after this return. */
  readonly basketReturned: boolean;
  /** PositionIds fully returned after this return. */
  readonly positionsReturned: ReadonlySet<number>;
  /** Reward value refunded by all returns so far, including this one. */
  readonly refundedSoFarMinor: number;
  /** Earned points due back per scheme over all returns so far, including this one. */
  readonly pointsDueSoFar: ReadonlyMap<number, number>;
}

/**
 * The line gross returned: Σ line gross × returned / sold (rounded half away from zero), the whole
 * line once it is all returned, so that the returns of a basket add up to its gross exactly. What
 * a spend tier's measure loses (docs/decisions.md, "Status tiers", "Spend net of returns").
 */
export function returnedGrossMinor(
  sold: readonly SoldPosition[],
  returned: ReadonlyMap<number, Decimal>,
): number {
  let sum = 0;
  for (const p of sold) sum += shareMinor(p.lineGrossMinor, returned.get(p.positionId) ?? ZERO, p.amount);
  return sum;
}

/**
 * Each position's part of the rewards a grant booked, in the order of `positions`: its product
 * rewards, its value (the line gross less them, never below zero), and its share of the bill
 * rewards (a reward on no position counts as one), split in proportion to the values by largest
 * remainder, so that the shares add up to the bill rewards exactly. The rule a return refunds by
 * (RefundedRewardValue) and the receipt's VAT table is drawn by.
 */
export function rewardsByPosition(
  positions: readonly { readonly positionId: number; readonly lineGrossMinor: number }[],
  rewards: readonly Pick<RewardLine, 'rewardType' | 'positionId' | 'grossRewardMinor'>[],
): { productMinor: number; valueMinor: number; billMinor: number }[] {
  const productRewards = new Map<number, number>();
  let billRewardsMinor = 0;
  for (const r of rewards) {
    if (r.rewardType === 2 || r.positionId === 0) billRewardsMinor += r.grossRewardMinor;
    else productRewards.set(r.positionId, (productRewards.get(r.positionId) ?? 0) + r.grossRewardMinor);
  }
  const product = positions.map((p) => productRewards.get(p.positionId) ?? 0);
  const values = positions.map((p, i) => Math.max(0, p.lineGrossMinor - (product[i] ?? 0)));
  const billShares = positions.length === 0 ? [] : prorate(billRewardsMinor, values);
  return positions.map((_, i) => ({
    productMinor: product[i] ?? 0,
    valueMinor: values[i] ?? 0,
    billMinor: billShares[i] ?? 0,
  }));
}

/**
 * The cumulative effect of everything returned so far (`returnedSoFar`, this return included).
 *
 * Value of a position = its line gross minus its product rewards (campaign and scheme); the basket
 * value is their sum. Returned value of a position = value × returned / sold (rounded); points due
 * back = floor(earned × returned value / basket value). Rewards of a position = its product
 * rewards plus its share of the bill rewards (largest remainder by value); refunded = Σ rewards ×
 * returned / sold (rounded). A full return gives exactly the whole of each.
 */
export function planReturn(
  sold: readonly SoldPosition[],
  rewards: readonly RewardLine[],
  earned: readonly { schemeId: number; earned: number }[],
  returnedSoFar: ReadonlyMap<number, Decimal>,
): ReturnPlan {
  const parts = rewardsByPosition(sold, rewards);
  let basketValue = 0;
  let returnedValue = 0;
  let refunded = 0;
  let basketReturned = true;
  const positionsReturned = new Set<number>();
  sold.forEach((p, i) => {
    const value = parts[i]?.valueMinor ?? 0;
    const returned = returnedSoFar.get(p.positionId) ?? ZERO;
    basketValue += value;
    returnedValue += shareMinor(value, returned, p.amount);
    refunded += shareMinor((parts[i]?.productMinor ?? 0) + (parts[i]?.billMinor ?? 0), returned, p.amount);
    if (compareDecimal(returned, p.amount) >= 0) positionsReturned.add(p.positionId);
    else basketReturned = false;
  });
  const pointsDueSoFar = new Map<number, number>();
  for (const e of earned) {
    let due: number;
    if (basketValue === 0) due = basketReturned ? e.earned : 0;
    else due = Number((BigInt(e.earned) * BigInt(returnedValue)) / BigInt(basketValue));
    pointsDueSoFar.set(e.schemeId, due);
  }
  return { basketReturned, positionsReturned, refundedSoFarMinor: refunded, pointsDueSoFar };
}

// ---- the decision ---------------------------------------------------------------------------

export interface ReturnRefusal {
  readonly ok: false;
  readonly reason: 'invalid_body' | 'return_id_reused' | 'exceeds_sold';
  readonly detail?: string;
}

const refuse = (reason: ReturnRefusal['reason'], detail?: string): ReturnRefusal =>
  detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };

/** Exact amounts, each PositionId once. */
export function canonicalReturn(body: ReturnBody): { ok: true; request: ReturnRequest } | ReturnRefusal {
  const seen = new Set<number>();
  const positions: ReturnRequest['Positions'] = [];
  for (const p of body.Positions) {
    if (seen.has(p.PositionId))
      return refuse('invalid_body', `PositionId ${p.PositionId} occurs more than once.`);
    seen.add(p.PositionId);
    const amount = parseDecimal(p.Amount);
    if (!amount || amount.units <= 0n) {
      return refuse('invalid_body', `Position ${p.PositionId}: Amount must be greater than zero.`);
    }
    positions.push({ PositionId: p.PositionId, Amount: decimalText(amount) });
  }
  positions.sort((a, b) => a.PositionId - b.PositionId);
  return { ok: true, request: { ReturnId: body.ReturnId, Positions: positions } };
}

function sameRequest(a: ReturnRequest, b: ReturnRequest): boolean {
  return (
    a.ReturnId === b.ReturnId &&
    a.Positions.length === b.Positions.length &&
    a.Positions.every((p, i) => {
      const q = b.Positions[i];
      return q !== undefined && q.PositionId === p.PositionId && q.Amount === p.Amount;
    })
  );
}

function decimalOf(text: string): Decimal {
  const d = parseDecimal(text);
  if (!d) throw new Error(`stored amount is not a decimal: ${text}`);
  return d;
}

/** Positions a campaign rewarded; null when it rewarded the bill (released with the whole basket). */
function campaignPositions(rewards: readonly RewardLine[], campaignId: number): number[] | null {
  const lines = rewards.filter((r) => r.source === 'campaign' && r.couponId === campaignId);
  if (lines.length === 0 || lines.some((r) => r.rewardType === 2 || r.positionId === 0)) return null;
  return [...new Set(lines.map((r) => r.positionId))];
}

/** What a return needs to know, as loaded under the basket's lock. */
export interface ReturnFacts {
  readonly request: ReturnRequest;
  /** Earlier returns of the basket, each as requested and as stored. */
  readonly earlier: readonly { readonly request: ReturnRequest; readonly stored: StoredReturn }[];
  readonly sold: readonly SoldPosition[];
  readonly booking: GrantBooking;
}

/** What one scheme's points do in this return. */
export interface SchemeReturn {
  readonly schemeId: number;
  /** Spent points to give back now (the scheme reward was returned), else 0. */
  readonly giveBack: number;
  /** Earned points to take back now (cumulative due minus what earlier returns were due). */
  readonly due: number;
}

export type ReturnDecision =
  | { readonly ok: true; readonly kind: 'repeat'; readonly response: ReturnResponse }
  | {
      readonly ok: true;
      readonly kind: 'book';
      readonly plan: ReturnPlan;
      /** Reward value this return refunds, minor units. */
      readonly refundedMinor: number;
      /** Line gross this return takes back (so far minus what earlier returns took), minor units. */
      readonly returnedGrossMinor: number;
      /** Per scheme the grant booked, when it booked for a consumer. */
      readonly schemes: readonly SchemeReturn[];
      /** Campaigns whose usage of this basket is now fully returned. */
      readonly releaseCampaigns: readonly number[];
    };

/**
 * The same ReturnId again answers the stored response (with other positions: refused); else
 * nothing may be returned beyond what was sold, and the plan says what to book.
 */
export function decideReturn(facts: ReturnFacts): ReturnDecision | ReturnRefusal {
  const { request, booking } = facts;
  const same = facts.earlier.find((e) => e.request.ReturnId === request.ReturnId);
  if (same) {
    if (!sameRequest(same.request, request)) return refuse('return_id_reused');
    return { ok: true, kind: 'repeat', response: same.stored.response };
  }
  const before = facts.earlier.map((e) => e.stored.booking);
  const soldById = new Map(facts.sold.map((p) => [p.positionId, p]));

  // Everything returned so far, this return included; nothing more than was sold.
  const returnedBefore = new Map<number, Decimal>();
  for (const b of before) {
    for (const p of b.positions) {
      returnedBefore.set(
        p.positionId,
        addDecimal(returnedBefore.get(p.positionId) ?? ZERO, decimalOf(p.amount)),
      );
    }
  }
  const returnedSoFar = new Map(returnedBefore);
  for (const p of request.Positions) {
    const position = soldById.get(p.PositionId);
    if (!position)
      return refuse('invalid_body', `PositionId ${p.PositionId} is not a position of this basket.`);
    const total = addDecimal(returnedBefore.get(p.PositionId) ?? ZERO, decimalOf(p.Amount));
    if (compareDecimal(total, position.amount) > 0) {
      return refuse(
        'exceeds_sold',
        `Position ${p.PositionId}: ${decimalText(total)} returned in all, ${decimalText(position.amount)} sold.`,
      );
    }
    returnedSoFar.set(p.PositionId, total);
  }

  const consumer = booking.consumer;
  const plan = planReturn(
    facts.sold,
    booking.rewards,
    consumer === null ? [] : booking.loyalty.map((l) => ({ schemeId: l.schemeId, earned: l.earned })),
    returnedSoFar,
  );
  const refundedBefore = before.reduce((sum, b) => sum + b.refundedMinor, 0);

  const schemes: SchemeReturn[] = [];
  if (consumer !== null) {
    const givenBackEarlier = new Set<number>();
    const dueEarlier = new Map<number, number>();
    for (const b of before) {
      for (const l of b.loyalty) {
        if (l.givenBack > 0) givenBackEarlier.add(l.schemeId);
        dueEarlier.set(l.schemeId, (dueEarlier.get(l.schemeId) ?? 0) + l.due);
      }
    }
    for (const l of booking.loyalty) {
      // The scheme reward comes back once its rewarded position is fully returned (bill reward:
      // the whole basket), so that no customer keeps a free unit and gets its points back.
      const rewardReturned =
        l.spent > 0 &&
        !givenBackEarlier.has(l.schemeId) &&
        (l.positionId === 0 ? plan.basketReturned : plan.positionsReturned.has(l.positionId));
      schemes.push({
        schemeId: l.schemeId,
        giveBack: rewardReturned ? l.spent : 0,
        due: (plan.pointsDueSoFar.get(l.schemeId) ?? 0) - (dueEarlier.get(l.schemeId) ?? 0),
      });
    }
  }

  // A campaign's usage is released once every position it rewarded is fully returned (a bill
  // campaign: the whole basket), so that a usage-limited campaign applies again.
  const releaseCampaigns = booking.usages
    .filter((u) => {
      const positions = campaignPositions(booking.rewards, u.campaignId);
      return positions === null ? plan.basketReturned : positions.every((p) => plan.positionsReturned.has(p));
    })
    .map((u) => u.campaignId);

  return {
    ok: true,
    kind: 'book',
    plan,
    refundedMinor: plan.refundedSoFarMinor - refundedBefore,
    returnedGrossMinor:
      returnedGrossMinor(facts.sold, returnedSoFar) - returnedGrossMinor(facts.sold, returnedBefore),
    schemes,
    releaseCampaigns,
  };
}
