import type { IdentificationObserver } from '../cards/identification-throttle.js';
import { resolveBasketIdentity } from './basket-identity.js';
import { computeBasketRewards } from './basket-rewards.js';
import type { StoredResult } from './basket-model.js';
import { AppError } from '../shared/errors.js';
import { parseBasket } from './basket.parse.js';
import { isGranted } from './basket.store.js';
import { encodeStoredBasket } from './stored-basket.js';
import type { BasketDeps } from './basket-deps.js';
import type { BasketBody, BasketResponse, BasketTerminal } from './basket.types.js';

/**
 * The caller of an upload as authenticated before its body was read: its terminal, and whether
 * that was looked up for this request (`fresh`) or remembered (only a guess, which the write
 * re-checks).
 */
export interface BasketCaller {
  readonly unit: BasketTerminal;
  readonly fresh: boolean;
}

/**
 * How the upload looks its terminal up anew when the write finds the remembered one stale: a
 * lookup that also refreshes what is remembered, and dropping what is remembered.
 */
export interface TerminalLookup {
  lookup(nowMs: number): Promise<BasketTerminal>;
  forget(): void;
}

export interface BasketQuery {
  consumerIdentToken?: string;
  giftCardId?: string;
}

/**
 * The body's BillNumber as the database reads it from the stored text (`body->>'BillNumber'`),
 * when that is certain without parsing the text again; null: the write reads it from the body
 * (write_basket, migration 0049). A body written from the validated object holds that object's
 * string. A body stored as the till sent it may hold something else where validation coerced the
 * value (a number, null, a one-element array) or where the key comes twice, so its string counts
 * only when the text has the key once, written plainly, with exactly that string after it.
 */
export function knownBillNumber(body: BasketBody, bodyJson: string, asSent: boolean): string | null {
  const value = body.BillNumber;
  if (typeof value !== 'string') return null;
  if (!asSent) return value;
  const key = '"BillNumber"';
  const at = bodyJson.indexOf(key);
  if (at < 0 || bodyJson.indexOf(key, at + key.length) >= 0) return null;
  return bodyJson.startsWith(`:${JSON.stringify(value)}`, at + key.length) ? value : null;
}

/**
 * Upload: validate, compute the rewards from scratch and store the whole basket anew, replacing
 * any earlier upload of the same basketId on this trackingUnit. A granted basket is never
 * replaced (11010); the check is part of the write, so a grant racing an upload cannot be lost.
 *
 * The terminal may come from a short-lived cache; the write re-checks it, and a stale entry makes
 * the upload start over with a fresh lookup.
 */
export async function uploadBasket(
  deps: BasketDeps,
  caller: BasketCaller,
  terminals: TerminalLookup,
  basketId: string,
  query: BasketQuery,
  body: BasketBody,
  sentJson: string | null,
  identificationObserver?: IdentificationObserver,
): Promise<BasketResponse> {
  const { db, clock } = deps;
  let nowMs = clock.nowMs();
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
    const rewards = await computeBasketRewards(deps, unit, basket, identity, nowMs);
    const response: BasketResponse = { Rewards: rewards.rewards, LoyaltyInfo: rewards.loyalty };
    if (identity.balances.length > 0) response.Balances = identity.balances;
    const stored: StoredResult = {
      engine: rewards.snapshot,
      exponent: basket.exponent,
      basket: encodeStoredBasket(basket),
      ...(identity.giftCardNamed ? { giftCard: true as const } : {}),
    };
    const revision = await deps.writer.write({
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
      billNumber: knownBillNumber(body, bodyJson, bodyJson === sentJson),
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
    terminals.forget();
    if (fresh) {
      if (await isGranted(db, unit.unitId, basketId)) throw new AppError('basketGranted');
    }
    nowMs = clock.nowMs();
    unit = await terminals.lookup(nowMs);
    fresh = true;
  }
  // The terminal kept changing while the upload ran (re-assigned or rules edited three times).
  throw new AppError('unavailable', 'The terminal changed during the upload; repeat it.');
}
