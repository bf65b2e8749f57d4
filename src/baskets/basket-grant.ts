import type { Transaction } from 'kysely';
import { loyaltyToWire, rewardsToWire } from './engine-adapter.js';
import { loadCampaignVersions, loadSchemeVersions } from '../campaigns/rules.store.js';
import { buildCampaignIndex, evaluateBasket } from '../engine/index.js';
import type { ConsumerState, EngineResult, LoyaltyScheme, RewardLine } from '../engine/types.js';
import {
  type BasketRef,
  type Consumer,
  campaignUsages,
  committedPoints,
  earnPoints,
  lockConsumer,
  recordUsages,
  takePoints,
  currentConsumer,
} from '../loyalty/points.store.js';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import type { BasketBody, BasketTerminal, LoyaltyOut, RewardOut, LegacyBodyReader } from './basket.types.js';
import { rebuildEngineBasket } from './basket-rewards.js';

import type { StoredResult } from './basket-upload.js';
import { parseBasket } from './basket.parse.js';
import { decodeStoredBasket } from './stored-basket.js';
import { lockBasket, recordGrant } from './basket.store.js';
import type { BasketDeps } from './basket-deps.js';
import { queuePurchaseNotification, writeReceipt } from './basket-notify.js';

export interface GrantResponse {
  BasketId: string;
  Granted: true;
  Rewards: RewardOut[];
  LoyaltyInfo: LoyaltyOut[];
}

/** What a grant booked, kept for returns. */
export interface GrantBooking {
  readonly consumer: Consumer | null;
  readonly redeemedInPos: boolean;
  readonly grantedAtMs: number;
  /** The rewards booked as redeemed (none when the POS did not deduct them). */
  readonly rewards: RewardLine[];
  readonly loyalty: {
    schemeId: number;
    earned: number;
    spent: number;
    positionId: number;
    grossRewardMinor: number;
    expiresAtMs: number | null;
  }[];
  readonly usages: { campaignId: number; count: number }[];
}

export interface StoredGrant {
  readonly response: GrantResponse;
  readonly booking: GrantBooking;
  /** The receipt of the granted basket (absent in grants made before receipts). */
  readonly receiptId?: string;
}

const DAY_MS = 86_400_000;

/** The result as booked when the POS did not deduct the rewards: points earned, none spent. */
function notRedeemed(result: EngineResult): EngineResult {
  return {
    ...result,
    rewards: [],
    couponUsages: [],
    loyalty: result.loyalty.map((l) => ({
      ...l,
      spentPoints: 0,
      newPoints: l.previousPoints + l.earnedPoints,
      grossRewardMinor: 0,
      positionId: 0,
    })),
  };
}

/**
 * Re-evaluates the basket with the exact campaign and scheme versions of its upload and the
 * consumer's points and usages as they are now (under the consumer's lock), so that what is
 * booked is always backed by points that exist.
 */
async function evaluateForGrant(
  trx: Transaction<DB>,
  merchantId: number,
  stored: StoredResult,
  legacyBody: () => BasketBody,
  nowMs: number,
): Promise<{ result: EngineResult; schemes: LoyaltyScheme[]; consumer: Consumer | null }> {
  const snapshot = stored.engine;
  if (snapshot.inputs === null) {
    // No campaign or scheme touched the basket at its upload: nothing to book but the grant.
    return {
      result: { rewards: [], loyalty: [], explanations: [], couponUsages: [] },
      schemes: [],
      consumer: snapshot.consumer,
    };
  }
  const { inputs } = snapshot;
  // A basket uploaded before the parsed basket was stored is read from its body (docs/decisions.md).
  const basket =
    decodeStoredBasket(stored.basket) ?? parseBasket(legacyBody(), inputs.merchantCurrency, inputs.timeZone);
  const engineBasket = rebuildEngineBasket(basket, inputs);
  const [campaigns, schemes] = await Promise.all([
    loadCampaignVersions(trx, merchantId, snapshot.campaigns),
    loadSchemeVersions(trx, merchantId, snapshot.schemes),
  ]);
  let state: ConsumerState | null = null;
  const consumer = snapshot.consumer === null ? null : await currentConsumer(trx, snapshot.consumer);
  if (consumer !== null) {
    await lockConsumer(trx, consumer);
    state = {
      points: await committedPoints(
        trx,
        merchantId,
        consumer,
        schemes.map((s) => s.id),
        nowMs,
      ),
      usages: await campaignUsages(
        trx,
        merchantId,
        consumer,
        campaigns.map((c) => c.id),
      ),
    };
  }
  const result = evaluateBasket(buildCampaignIndex(campaigns), schemes, engineBasket, state);
  return { result, schemes, consumer };
}

/**
 * Grant: the bill is paid and final. In one transaction: earned points are committed, redeemed
 * points spent (oldest first), coupon usages counted, and the booking stored. A second grant
 * answers the same body and books nothing. `redeemedInPos=false`: the POS did not deduct the
 * rewards, so none is booked as redeemed (no usage counted, no points spent); earned points count.
 */
export async function grantBasket(
  deps: BasketDeps,
  unit: BasketTerminal,
  basketId: string,
  redeemedInPos: boolean,
  readLegacyBody: LegacyBodyReader,
): Promise<GrantResponse> {
  let queued = false;
  const response = await deps.db.transaction().execute(async (trx) => {
    const row = await lockBasket(trx, unit.unitId, basketId);
    if (!row) throw new AppError('basketUnknown');
    if (row.grantedAt !== null && row.grant !== null) return row.grant.response;
    const nowMs = deps.clock.nowMs();
    const stored = row.result;
    const {
      result: evaluated,
      schemes,
      consumer,
    } = await evaluateForGrant(trx, unit.merchantId, stored, () => readLegacyBody(row.body), nowMs);
    const result = redeemedInPos ? evaluated : notRedeemed(evaluated);
    const ref: BasketRef = { merchantId: unit.merchantId, trackingUnitId: unit.unitId, basketId };
    const expiryDays = new Map(schemes.map((s) => [s.id, s.pointsExpireAfterDays]));
    const loyalty: GrantBooking['loyalty'] = [];
    if (consumer !== null) {
      for (const line of result.loyalty) {
        const days = expiryDays.get(line.schemeId) ?? null;
        const expiresAtMs = days === null ? null : nowMs + days * DAY_MS;
        // The threshold counts the points this basket earns, so they are booked first; spending
        // then takes the oldest lots first, this basket's own last.
        await earnPoints(trx, ref, consumer, line.schemeId, line.earnedPoints, nowMs, expiresAtMs);
        const spent = await takePoints(
          trx,
          ref,
          consumer,
          line.schemeId,
          line.spentPoints,
          nowMs,
          'spend',
          null,
        );
        if (spent !== line.spentPoints) throw new Error('points to spend are not there under the lock');
        loyalty.push({
          schemeId: line.schemeId,
          earned: line.earnedPoints,
          spent: line.spentPoints,
          positionId: line.positionId,
          grossRewardMinor: line.grossRewardMinor,
          expiresAtMs,
        });
      }
    }
    await recordUsages(trx, ref, consumer, result.couponUsages, nowMs);
    const response: GrantResponse = {
      BasketId: basketId,
      Granted: true,
      Rewards: rewardsToWire(result, stored.exponent),
      LoyaltyInfo: loyaltyToWire(result, stored.exponent),
    };
    const booking: GrantBooking = {
      consumer,
      redeemedInPos,
      grantedAtMs: nowMs,
      rewards: result.rewards,
      loyalty,
      usages: result.couponUsages,
    };
    const receiptId = await writeReceipt(trx, unit.merchantId, unit.unitId, basketId, nowMs);
    queued = await queuePurchaseNotification(trx, unit.merchantId, consumer, receiptId, 'grant', nowMs);
    await recordGrant(trx, unit.unitId, basketId, redeemedInPos, { response, booking, receiptId }, nowMs);
    return response;
  });
  if (queued) deps.nudgeOutbox?.();
  return response;
}
