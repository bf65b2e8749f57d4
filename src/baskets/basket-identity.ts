import type { Kysely } from 'kysely';
import { cardCondition } from '../ledger/rules/posting-rules.js';
import { AppError } from '../shared/errors.js';
import { currencyExponent, minorToMajor } from '../shared/money.js';
import type { DB } from '../store/schema.js';
import { type CardView, findCards } from '../cards/card.store.js';
import { type ThrottleCaller, throttledIdentification } from '../cards/identification-throttle.js';
import { otpHash } from '../cards/profile.service.js';
import { liveOtps } from '../cards/profile.store.js';
import { normaliseCode } from '../campaigns/campaign-codes.js';
import { unusedCodesAmong } from '../campaigns/campaign-codes.store.js';
import type { PresentedCode } from './basket-model.js';

export interface BasketIdentityInput {
  consumerIdentToken?: string | undefined;
  giftCardId?: string | undefined;
  contextIdentifiers?: readonly string[] | undefined;
}

export interface BasketIdentity {
  /** The consumer's profile (through a linked card or a live one-time password), if any. */
  readonly profileId: number | null;
  /** The customer card that identified the consumer (an unlinked card is a consumer of its own). */
  readonly consumerCardId: number | null;
  readonly giftCardId: number | null;
  /**
   * A gift card was named (as `giftCardId`, as `consumerIdentToken`, or among the
   * ContextIdentifiers): the basket was bought or paid with it, so it stays out of the consumer's
   * view (docs/decisions.md, "Gift-card privacy and hardened pages").
   */
  readonly giftCardNamed: boolean;
  /** One entry per card given in the query: the id as sent and the balance it pays from. */
  readonly balances: { TokenId: string; Balance: number; CurrencyISO: string }[];
  /** Context identifiers that identified nobody: the coupon codes of the basket. */
  readonly couponCodes: string[];
  /** The coupon codes that are unused unique codes of a campaign (docs/decisions.md, "Unique codes"). */
  readonly codes: PresentedCode[];
}

function balanceOf(
  tokenId: string,
  card: CardView,
): { TokenId: string; Balance: number; CurrencyISO: string } {
  return {
    TokenId: tokenId,
    Balance: minorToMajor(card.balanceMinor, currencyExponent(card.currency)),
    CurrencyISO: card.currency,
  };
}

/**
 * Who a basket belongs to (docs/decisions.md, "Basket identity"). `consumerIdentToken` must be a registered card of
 * the merchant (11004 unknown, 11005 locked, 11006 expired), `giftCardId` likewise (11007 to
 * 11009). A ContextIdentifiers entry equal to a usable customer-card id or to a live one-time
 * password identifies the consumer too; every other entry is a coupon code. Reads only, but for
 * the counters of failed identifications: entries shaped like a one-time password are looked up
 * only within the caller's and the merchant's limits (identification-throttle.ts).
 */
export async function resolveBasketIdentity(
  db: Kysely<DB>,
  caller: ThrottleCaller,
  input: BasketIdentityInput,
  nowMs: number,
): Promise<BasketIdentity> {
  const { merchantId } = caller;
  const consumerToken = input.consumerIdentToken === '' ? undefined : input.consumerIdentToken;
  const giftToken = input.giftCardId === '' ? undefined : input.giftCardId;
  const context = [...new Set(input.contextIdentifiers ?? [])];
  const ids = [
    ...new Set([consumerToken, giftToken, ...context].filter((t): t is string => t !== undefined)),
  ];
  const cards = new Map((await findCards(db, merchantId, ids)).map((c) => [c.tokenId, c]));

  const balances: BasketIdentity['balances'] = [];
  let profileId: number | null = null;
  let consumerCardId: number | null = null;
  let giftCardId: number | null = null;
  // Whatever the till calls the parameter, a card registered as a gift card (token type 1) is one.
  let giftCardNamed = giftToken !== undefined;

  if (consumerToken !== undefined) {
    const card = cards.get(consumerToken);
    const condition = card ? cardCondition(card, nowMs) : 'released';
    if (!card || condition === 'released') throw new AppError('consumerTokenUnknown');
    if (condition === 'locked') throw new AppError('consumerTokenLocked');
    if (condition === 'expired') throw new AppError('consumerTokenExpired');
    profileId = card.profileId;
    consumerCardId = card.cardId;
    if (card.tokenType === 1) giftCardNamed = true;
    balances.push(balanceOf(consumerToken, card));
  }
  if (giftToken !== undefined) {
    const card = cards.get(giftToken);
    const condition = card ? cardCondition(card, nowMs) : 'released';
    if (!card || condition === 'released') throw new AppError('giftCardUnknown');
    if (condition === 'locked') throw new AppError('giftCardLocked');
    if (condition === 'expired') throw new AppError('giftCardExpired');
    giftCardId = card.cardId;
    balances.push(balanceOf(giftToken, card));
  }

  const couponCodes: string[] = [];
  const candidates: string[] = [];
  for (const entry of context) {
    const card = cards.get(entry);
    if (card && card.state !== 'released') {
      if (card.tokenType === 1) giftCardNamed = true;
      // A card id is never a coupon code; a usable customer card identifies the consumer.
      if (consumerCardId === null && card.tokenType === 0 && cardCondition(card, nowMs) === 'usable') {
        consumerCardId = card.cardId;
        profileId = card.profileId;
      }
      continue;
    }
    candidates.push(entry);
  }
  if (candidates.length > 0) {
    let otpProfile: number | null = null;
    const live = await throttledIdentification(db, caller, candidates, nowMs, async (texts) => {
      const hashes = new Map(texts.map((c) => [otpHash(c), c]));
      const otps = await liveOtps(db, merchantId, [...hashes.keys()], nowMs);
      const found = new Set<string>();
      for (const o of otps) {
        const text = hashes.get(o.otp_sha256);
        if (text !== undefined) found.add(text);
        if (otpProfile === null) otpProfile = o.profile_id;
      }
      return found;
    });
    if (profileId === null) profileId = otpProfile;
    for (const c of candidates) if (!live.has(c)) couponCodes.push(c);
  }
  // A coupon code may be a unique code of a campaign, sent in any case.
  const codes = await unusedCodesAmong(db, merchantId, [...new Set(couponCodes.map(normaliseCode))]);
  return { profileId, consumerCardId, giftCardId, giftCardNamed, balances, couponCodes, codes };
}
