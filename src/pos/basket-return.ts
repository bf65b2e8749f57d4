import type { AppContext } from '../context.js';
import type { RewardLine } from '../engine/types.js';
import {
  type BasketRef,
  committedPoints,
  givePointsBack,
  lockConsumer,
  releaseUsage,
  spentPointsExpiry,
  takePoints,
  currentConsumer,
} from '../loyalty/points.store.js';
import { AppError } from '../shared/errors.js';
import {
  type Decimal,
  divRoundHalfAwayFromZero,
  minorToMajor,
  parseDecimal,
  powerOfTen,
} from '../shared/money.js';
import { prorate } from '../shared/prorate.js';
import type { AuthenticatedUnit } from './auth.js';
import type { GrantBooking, StoredGrant } from './basket-grant.js';
import type { ReturnBody, ReturnResponse } from './basket-return.schemas.js';
import type { BasketBody, LoyaltyOut } from './basket.schemas.js';
import { parseBasket } from './basket.parse.js';
import type { StoredResult } from './basket.service.js';
import type { StoredBasketReader } from './stored-basket.js';

/**
 * Basket returns (CONTRACT section 1 "Returns", docs/decisions.md "Returns").
 *
 * Every return stores only its own increments; the state after any number of returns is their sum.
 * The cumulative amounts (points due back, reward value refunded) are always computed from the
 * total returned so far and the increment is the difference to what earlier returns booked, so
 * rounding never drifts and a full return reverses the basket exactly.
 */

/** The request as stored and compared: positions by PositionId, amounts as exact decimal text. */
export interface ReturnRequest {
  ReturnId: string;
  Positions: { PositionId: number; Amount: string }[];
}

/** What one return booked. */
export interface ReturnBooking {
  /** This return's amounts (decimal text). */
  readonly positions: { positionId: number; amount: string }[];
  /** Reward value refunded by this return, minor units. */
  readonly refundedMinor: number;
  readonly loyalty: {
    schemeId: number;
    /** Earned points this return should take back (cumulative target minus earlier targets). */
    due: number;
    /** Taken back; less than `due` only when the consumer held fewer points (the rest is written off). */
    taken: number;
    shortfall: number;
    /** Spent points given back (the scheme reward was returned). */
    givenBack: number;
  }[];
  /** Campaigns whose usage of this basket this return released. */
  readonly releasedCampaigns: number[];
}

export interface StoredReturn {
  readonly response: ReturnResponse;
  readonly booking: ReturnBooking;
}

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

function decimalText(d: Decimal): string {
  const negative = d.units < 0n;
  const digits = (negative ? -d.units : d.units).toString().padStart(d.scale + 1, '0');
  const text = d.scale === 0 ? digits : `${digits.slice(0, -d.scale)}.${digits.slice(-d.scale)}`;
  return negative ? `-${text}` : text;
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
  const productRewards = new Map<number, number>();
  let billRewardsMinor = 0;
  for (const r of rewards) {
    if (r.rewardType === 2 || r.positionId === 0) billRewardsMinor += r.grossRewardMinor;
    else productRewards.set(r.positionId, (productRewards.get(r.positionId) ?? 0) + r.grossRewardMinor);
  }
  const values = sold.map((p) => Math.max(0, p.lineGrossMinor - (productRewards.get(p.positionId) ?? 0)));
  const billShares = sold.length === 0 ? [] : prorate(billRewardsMinor, values);
  let basketValue = 0;
  let returnedValue = 0;
  let refunded = 0;
  let basketReturned = true;
  const positionsReturned = new Set<number>();
  sold.forEach((p, i) => {
    const value = values[i] ?? 0;
    const returned = returnedSoFar.get(p.positionId) ?? ZERO;
    basketValue += value;
    returnedValue += shareMinor(value, returned, p.amount);
    refunded += shareMinor(
      (productRewards.get(p.positionId) ?? 0) + (billShares[i] ?? 0),
      returned,
      p.amount,
    );
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

// ---- request handling -----------------------------------------------------------------------

/** A return that was read but breaks a rule (not a syntax error). */
function invalid(detail: string): AppError {
  return new AppError('refused', detail);
}

/** Exact amounts, each PositionId once; 400 / 1000 otherwise. */
export function canonicalReturn(body: ReturnBody): ReturnRequest {
  const seen = new Set<number>();
  const positions: ReturnRequest['Positions'] = [];
  for (const p of body.Positions) {
    if (seen.has(p.PositionId)) throw invalid(`PositionId ${p.PositionId} occurs more than once.`);
    seen.add(p.PositionId);
    const amount = parseDecimal(p.Amount);
    if (!amount || amount.units <= 0n) {
      throw invalid(`Position ${p.PositionId}: Amount must be greater than zero.`);
    }
    positions.push({ PositionId: p.PositionId, Amount: decimalText(amount) });
  }
  positions.sort((a, b) => a.PositionId - b.PositionId);
  return { ReturnId: body.ReturnId, Positions: positions };
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

/** Sold amounts and the line gross the engine used, read again from the stored basket body. */
function soldPositions(body: BasketBody, currency: string, timeZone: string): SoldPosition[] {
  return parseBasket(body, currency, timeZone).positions.map((p) => ({
    positionId: p.positionId,
    amount: p.amount,
    lineGrossMinor: p.lineGrossMinor,
  }));
}

/** Positions a campaign rewarded; null when it rewarded the bill (released with the whole basket). */
function campaignPositions(rewards: readonly RewardLine[], campaignId: number): number[] | null {
  const lines = rewards.filter((r) => r.source === 'campaign' && r.couponId === campaignId);
  if (lines.length === 0 || lines.some((r) => r.rewardType === 2 || r.positionId === 0)) return null;
  return [...new Set(lines.map((r) => r.positionId))];
}

/**
 * Return of a granted basket, in one transaction under the basket's row lock and the consumer's
 * lock: earned points are taken back in proportion to the returned value, a scheme reward whose
 * rewarded position (bill reward: the whole basket) is fully returned gives its points back,
 * campaign usages are released, and the return is stored with its response.
 */
export async function returnBasket(
  ctx: AppContext,
  unit: AuthenticatedUnit,
  basketId: string,
  body: ReturnBody,
  readBody: StoredBasketReader,
): Promise<ReturnResponse> {
  const request = canonicalReturn(body);
  return ctx.database.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('baskets')
      .select(['body', 'currency', 'result', 'granted_at', 'grant_result'])
      .where('tracking_unit_id', '=', unit.unitId)
      .where('basket_id', '=', basketId)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw new AppError('basketUnknown');
    if (row.granted_at === null || row.grant_result === null) throw new AppError('basketNotGranted');

    const earlier = await trx
      .selectFrom('basket_returns')
      .select(['return_id', 'body', 'response'])
      .where('tracking_unit_id', '=', unit.unitId)
      .where('basket_id', '=', basketId)
      .execute();
    const same = earlier.find((r) => r.return_id === request.ReturnId);
    if (same) {
      if (!sameRequest(same.body as ReturnRequest, request)) throw new AppError('returnIdReused');
      return (same.response as StoredReturn).response;
    }
    const before = earlier.map((r) => (r.response as StoredReturn).booking);

    const stored = row.result as StoredResult;
    const grant = row.grant_result as StoredGrant;
    const booking: GrantBooking = grant.booking;
    const sold = soldPositions(readBody(row.body), row.currency, unit.timeZone);
    const soldById = new Map(sold.map((p) => [p.positionId, p]));

    // Everything returned so far, this return included; nothing more than was sold (11012).
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
      if (!position) throw invalid(`PositionId ${p.PositionId} is not a position of this basket.`);
      const total = addDecimal(returnedBefore.get(p.PositionId) ?? ZERO, decimalOf(p.Amount));
      if (compareDecimal(total, position.amount) > 0) {
        throw new AppError(
          'returnExceedsSold',
          `Position ${p.PositionId}: ${decimalText(total)} returned in all, ${decimalText(position.amount)} sold.`,
        );
      }
      returnedSoFar.set(p.PositionId, total);
    }

    const consumer = booking.consumer;
    const plan = planReturn(
      sold,
      booking.rewards,
      consumer === null ? [] : booking.loyalty.map((l) => ({ schemeId: l.schemeId, earned: l.earned })),
      returnedSoFar,
    );
    const refundedBefore = before.reduce((sum, b) => sum + b.refundedMinor, 0);
    const nowMs = ctx.clock.nowMs();
    const ref: BasketRef = { merchantId: unit.merchantId, trackingUnitId: unit.unitId, basketId };

    const loyaltyBooked: ReturnBooking['loyalty'] = [];
    const loyaltyOut: LoyaltyOut[] = [];
    if (consumer !== null && booking.loyalty.length > 0) {
      const holder = await currentConsumer(trx, consumer);
      await lockConsumer(trx, holder);
      const schemeIds = booking.loyalty.map((l) => l.schemeId);
      const previous = await committedPoints(trx, unit.merchantId, holder, schemeIds, nowMs);
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
        let givenBack = 0;
        if (rewardReturned) {
          const expiresAtMs = await spentPointsExpiry(trx, ref, l.schemeId, l.expiresAtMs);
          await givePointsBack(trx, ref, holder, l.schemeId, l.spent, nowMs, expiresAtMs, request.ReturnId);
          givenBack = l.spent;
        }
        // Given back first, so that a shortfall arises only when the consumer really holds too few.
        const due = (plan.pointsDueSoFar.get(l.schemeId) ?? 0) - (dueEarlier.get(l.schemeId) ?? 0);
        const taken = await takePoints(
          trx,
          ref,
          holder,
          l.schemeId,
          due,
          nowMs,
          'return_earned',
          request.ReturnId,
          true,
        );
        loyaltyBooked.push({ schemeId: l.schemeId, due, taken, shortfall: due - taken, givenBack });
      }
      const after = await committedPoints(trx, unit.merchantId, holder, schemeIds, nowMs);
      for (const l of booking.loyalty) {
        const granted = grant.response.LoyaltyInfo.find((g) => g.LoyaltyId === l.schemeId);
        const givenBack = loyaltyBooked.find((b) => b.schemeId === l.schemeId)?.givenBack ?? 0;
        loyaltyOut.push({
          LoyaltyId: l.schemeId,
          Name: granted?.Name ?? '',
          Details: [
            {
              PreviousPoints: previous.get(l.schemeId) ?? 0,
              NewPoints: after.get(l.schemeId) ?? 0,
              PointsInScheme: granted?.Details[0]?.PointsInScheme ?? 0,
              GrossRewardValue: givenBack > 0 ? minorToMajor(l.grossRewardMinor, stored.exponent) : 0,
              RewardTriggeringPositionId: givenBack > 0 ? l.positionId : 0,
            },
          ],
        });
      }
    }

    // A campaign's usage is released once every position it rewarded is fully returned (a bill
    // campaign: the whole basket), so that a usage-limited campaign applies again.
    const releasedCampaigns: number[] = [];
    for (const u of booking.usages) {
      const positions = campaignPositions(booking.rewards, u.campaignId);
      const returned =
        positions === null ? plan.basketReturned : positions.every((p) => plan.positionsReturned.has(p));
      if (!returned) continue;
      if (await releaseUsage(trx, ref, u.campaignId, request.ReturnId, nowMs))
        releasedCampaigns.push(u.campaignId);
    }

    const refundedMinor = plan.refundedSoFarMinor - refundedBefore;
    const response: ReturnResponse = {
      ReturnId: request.ReturnId,
      RefundedRewardValue: minorToMajor(refundedMinor, stored.exponent),
      LoyaltyInfo: loyaltyOut,
    };
    const returnBooking: ReturnBooking = {
      positions: request.Positions.map((p) => ({ positionId: p.PositionId, amount: p.Amount })),
      refundedMinor,
      loyalty: loyaltyBooked,
      releasedCampaigns,
    };
    await trx
      .insertInto('basket_returns')
      .values({
        merchant_id: unit.merchantId,
        tracking_unit_id: unit.unitId,
        basket_id: basketId,
        return_id: request.ReturnId,
        body: JSON.stringify(request),
        response: JSON.stringify({ response, booking: returnBooking } satisfies StoredReturn),
        created_at: new Date(nowMs),
      })
      .execute();
    return response;
  });
}
