import { resolveBasketIdentity } from '../cards/basket-identity.js';
import type { IdentificationObserver } from '../cards/identification-throttle.js';
import { type EngineSnapshot, computeBasketRewards } from './basket-rewards.js';
import type { AppContext } from '../context.js';
import { AppError } from '../shared/errors.js';
import { type AuthenticatedUnit, type UnitCredentials, lookupUnit } from './auth.js';
import { forgetUnit, rememberUnit } from './unit-cache.js';
import { parseBasket } from './basket.parse.js';
import { type BasketWriterOptions, basketWriterFor } from './basket-writer.js';
import type { BasketBody, BasketResponse } from './basket.schemas.js';

export interface BasketQuery {
  consumerIdentToken?: string;
  giftCardId?: string;
}

/**
 * What the stored `result` column holds: what the grant needs to re-evaluate and book the basket
 * (the answer itself is not kept: the grant computes what it books anew).
 */
export interface StoredResult {
  engine: EngineSnapshot;
  /** Decimal places of the basket's currency (2 for EUR). */
  exponent: number;
}

/**
 * Uploads share the database in batches (group commit): on PostgreSQL up to a quarter of the
 * pool writes baskets at once, leaving the rest for everything else; the embedded database has
 * one connection.
 */
function writerOptions(ctx: AppContext): BasketWriterOptions {
  const concurrency =
    ctx.database.kind === 'pglite' ? 1 : Math.max(1, Math.floor(ctx.config.databasePoolSize / 4));
  return { concurrency, maxBatch: 64 };
}

/**
 * Upload: validate, compute the rewards from scratch and store the whole basket anew, replacing
 * any earlier upload of the same basketId on this trackingUnit. A granted basket is never
 * replaced (11010); the check is part of the write, so a grant racing an upload cannot be lost.
 *
 * The terminal comes from a short-lived cache when it can; the write re-checks it, and a stale
 * entry makes the upload start over with a fresh lookup.
 */
export async function uploadBasket(
  ctx: AppContext,
  caller: { credentials: UnitCredentials; unit: AuthenticatedUnit; fresh: boolean },
  basketId: string,
  query: BasketQuery,
  body: BasketBody,
  sentJson: string | null,
  identificationObserver?: IdentificationObserver,
): Promise<BasketResponse> {
  const { db } = ctx.database;
  const { credentials } = caller;
  let nowMs = ctx.clock.nowMs();
  // Authenticated before the body was read, from the cache when it could; `fresh` when not.
  let { unit, fresh } = caller;
  // The basket as the till sent it when that is already the documents' shape (see
  // stored-basket.ts); a BillPdf goes to its own column, decoded, so then the body is rewritten.
  let bodyJson: string;
  if (sentJson !== null && (body.BillPdf === undefined || body.BillPdf === '')) {
    bodyJson = sentJson;
  } else {
    const { BillPdf: _pdf, ...rest } = body;
    bodyJson = JSON.stringify(rest);
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const basket = parseBasket(body, unit.currency, unit.timeZone);
    const identity = await resolveBasketIdentity(
      db,
      { merchantId: unit.merchantId, subject: `unit:${unit.unitId}`, observer: identificationObserver },
      { ...query, contextIdentifiers: basket.contextIdentifiers },
      nowMs,
    );
    const rewards = await computeBasketRewards(db, unit, basket, identity, nowMs);
    const response: BasketResponse = { Rewards: rewards.rewards, LoyaltyInfo: rewards.loyalty };
    if (identity.balances.length > 0) response.Balances = identity.balances;
    const stored: StoredResult = { engine: rewards.snapshot, exponent: basket.exponent };
    const revision = await basketWriterFor(db, writerOptions(ctx)).write({
      merchantId: unit.merchantId,
      unitId: unit.unitId,
      basketId,
      outletId: unit.outletId,
      timestampUtcMs: basket.timestamp.utcMs,
      offsetMinutes: basket.timestamp.offsetMinutes,
      currency: basket.currency,
      totalValueMinor: basket.totalValueMinor,
      consumerToken: query.consumerIdentToken ?? null,
      giftCardId: query.giftCardId ?? null,
      bodyJson,
      billPdf: basket.billPdf,
      resultJson: JSON.stringify(stored),
      uploadedAtMs: nowMs,
      devKeyId: unit.devKeyId,
      sortimentId: unit.sortimentId,
      rulesVersion: unit.rulesVersion,
      profileId: identity.profileId,
    });
    if (revision !== null) return response;
    // Nothing written: the terminal changed under the cached entry, or the basket is granted.
    forgetUnit(ctx, credentials.devKey, credentials.unitId);
    if (fresh) {
      const granted = await db
        .selectFrom('baskets')
        .select('granted_at')
        .where('tracking_unit_id', '=', unit.unitId)
        .where('basket_id', '=', basketId)
        .executeTakeFirst();
      if (granted?.granted_at) throw new AppError('basketGranted');
    }
    nowMs = ctx.clock.nowMs();
    unit = await lookupUnit(ctx, credentials, { requireActive: true });
    rememberUnit(ctx, credentials.devKey, unit, nowMs);
    fresh = true;
  }
  // The terminal kept changing while the upload ran (re-assigned or rules edited three times).
  throw new AppError('unavailable', 'The terminal changed during the upload; repeat it.');
}
