import {
  type BasketRef,
  type Consumer,
  committedPoints,
  givePointsBack,
  lockPointsHolder,
  releaseUsage,
  spentPointsExpiry,
  takePoints,
} from '../loyalty/points.store.js';
import { AppError } from '../shared/errors.js';
import { minorToMajor } from '../shared/money.js';
import type {
  BasketTerminal,
  LegacyBodyReader,
  LoyaltyOut,
  ReturnBody,
  ReturnResponse,
} from './basket.types.js';
import type { BasketDeps } from './basket-deps.js';
import { queuePurchaseNotification } from './basket-notify.js';
import { parseBasket } from './basket.parse.js';
import { basketReturns, lockBasket, recordReturn } from './basket.store.js';
import type { ReturnBooking } from './basket-model.js';
import { type ReturnRefusal, canonicalReturn, decideReturn } from './return-rules.js';
import { decodeStoredBasket } from './stored-basket.js';
import { watchReturnTiers } from './return-tiers.js';
import { giveBackCodes } from '../campaigns/campaign-codes.store.js';
import { giveBackBudgets } from '../campaigns/campaign-budgets.store.js';

export type { ReturnBooking, ReturnRequest, StoredReturn } from './basket-model.js';

/** The error a refusal of the return rules answers (docs/decisions.md, "Returns"). */
function refusalError(refusal: ReturnRefusal): AppError {
  switch (refusal.reason) {
    case 'invalid_body':
      // Read, but breaking a rule: not a syntax error.
      return new AppError('refused', refusal.detail);
    case 'return_id_reused':
      return new AppError('returnIdReused');
    case 'exceeds_sold':
      return new AppError('returnExceedsSold', refusal.detail);
  }
}

/**
 * Return of a granted basket, in one transaction under the basket's row lock and the consumer's
 * lock: load the facts, let the return rules decide (src/baskets/return-rules.ts), apply the
 * decision (points taken and given back, usages released, the return stored) and answer.
 */
export async function returnBasket(
  deps: BasketDeps,
  unit: BasketTerminal,
  basketId: string,
  body: ReturnBody,
  readLegacyBody: LegacyBodyReader,
): Promise<ReturnResponse> {
  const canonical = canonicalReturn(body);
  if (!canonical.ok) throw refusalError(canonical);
  const { request } = canonical;
  let queued = false;
  const answer = await deps.db.transaction().execute(async (trx) => {
    // Load.
    const row = await lockBasket(trx, unit.unitId, basketId);
    if (!row) throw new AppError('basketUnknown');
    if (row.grantedAt === null || row.grant === null) throw new AppError('basketNotGranted');
    const grant = row.grant;
    const earlier = await basketReturns(trx, unit.unitId, basketId);
    // A basket uploaded before the parsed basket was stored is read from its body (docs/decisions.md).
    const sold = (
      decodeStoredBasket(row.result.basket)?.positions ??
      parseBasket(readLegacyBody(row.body), row.currency, unit.timeZone).positions
    ).map((p) => ({ positionId: p.positionId, amount: p.amount, lineGrossMinor: p.lineGrossMinor }));

    // Decide.
    const decision = decideReturn({ request, earlier, sold, booking: grant.booking });
    if (!decision.ok) throw refusalError(decision);
    if (decision.kind === 'repeat') return decision.response;

    // Apply.
    const nowMs = deps.clock.nowMs();
    const ref: BasketRef = { merchantId: unit.merchantId, trackingUnitId: unit.unitId, basketId };
    const booking = grant.booking;
    const loyaltyBooked: ReturnBooking['loyalty'] = [];
    let points: { previous: Map<number, number>; after: Map<number, number> } | null = null;
    let notified: Consumer | null = null;
    let tiers: (() => Promise<number>) | null = null;
    if (booking.consumer !== null && decision.schemes.length > 0) {
      const holder = await lockPointsHolder(trx, booking.consumer);
      notified = holder;
      tiers = await watchReturnTiers(trx, unit.merchantId, row.result.engine, holder, unit.timeZone, nowMs);
      const schemeIds = decision.schemes.map((s) => s.schemeId);
      const previous = await committedPoints(trx, unit.merchantId, holder, schemeIds, nowMs);
      for (const s of decision.schemes) {
        if (s.giveBack > 0) {
          const fallbackMs = booking.loyalty.find((l) => l.schemeId === s.schemeId)?.expiresAtMs ?? null;
          const expiresAtMs = await spentPointsExpiry(trx, ref, s.schemeId, fallbackMs);
          await givePointsBack(
            trx,
            ref,
            holder,
            s.schemeId,
            s.giveBack,
            nowMs,
            expiresAtMs,
            request.ReturnId,
          );
        }
        // Given back first, so that a shortfall arises only when the consumer really holds too few.
        const taken = await takePoints(
          trx,
          ref,
          holder,
          s.schemeId,
          s.due,
          nowMs,
          'return_earned',
          request.ReturnId,
          true,
        );
        loyaltyBooked.push({
          schemeId: s.schemeId,
          due: s.due,
          taken,
          shortfall: s.due - taken,
          givenBack: s.giveBack,
        });
      }
      points = { previous, after: await committedPoints(trx, unit.merchantId, holder, schemeIds, nowMs) };
    }
    const releasedCampaigns: number[] = [];
    for (const campaignId of decision.releaseCampaigns) {
      if (await releaseUsage(trx, ref, campaignId, request.ReturnId, nowMs)) {
        releasedCampaigns.push(campaignId);
      }
    }
    // A released campaign gives back the unique code this basket redeemed for it.
    await giveBackCodes(trx, ref, releasedCampaigns, nowMs);
    // And what the basket booked of the campaign's budgets (docs/decisions.md, "Budgets").
    await giveBackBudgets(trx, ref, releasedCampaigns, nowMs);

    // Answer.
    const exponent = row.result.exponent;
    const loyaltyOut: LoyaltyOut[] = [];
    if (points !== null) {
      for (const l of booking.loyalty) {
        const granted = grant.response.LoyaltyInfo.find((g) => g.LoyaltyId === l.schemeId);
        const givenBack = loyaltyBooked.find((b) => b.schemeId === l.schemeId)?.givenBack ?? 0;
        loyaltyOut.push({
          LoyaltyId: l.schemeId,
          Name: granted?.Name ?? '',
          Details: [
            {
              PreviousPoints: points.previous.get(l.schemeId) ?? 0,
              NewPoints: points.after.get(l.schemeId) ?? 0,
              PointsInScheme: granted?.Details[0]?.PointsInScheme ?? 0,
              GrossRewardValue: givenBack > 0 ? minorToMajor(l.grossRewardMinor, exponent) : 0,
              RewardTriggeringPositionId: givenBack > 0 ? l.positionId : 0,
            },
          ],
        });
      }
    }
    const response: ReturnResponse = {
      ReturnId: request.ReturnId,
      RefundedRewardValue: minorToMajor(decision.refundedMinor, exponent),
      LoyaltyInfo: loyaltyOut,
    };
    const returnBooking: ReturnBooking = {
      positions: request.Positions.map((p) => ({ positionId: p.PositionId, amount: p.Amount })),
      refundedMinor: decision.refundedMinor,
      returnedGrossMinor: decision.returnedGrossMinor,
      loyalty: loyaltyBooked,
      releasedCampaigns,
    };
    await recordReturn(trx, ref, row, request, { response, booking: returnBooking }, nowMs);
    // A return that took back enough of the measure (points, or spend: the return's gross, now
    // stored) to lower the tier: its event, with the return.
    if (tiers !== null && (await tiers()) > 0) queued = true;
    // A return that changed what the consumer earned or spent notifies them too.
    const changed = loyaltyBooked.some((l) => l.taken > 0 || l.givenBack > 0);
    // Not for a basket bought or paid with a gift card: its activity is not the consumer's to see.
    if (changed && grant.receiptId !== undefined && row.result.giftCard !== true) {
      const purchase = await queuePurchaseNotification(
        trx,
        unit.merchantId,
        notified,
        grant.receiptId,
        'return',
        nowMs,
      );
      queued = queued || purchase;
    }
    return response;
  });
  if (queued) deps.nudgeOutbox?.();
  return answer;
}
