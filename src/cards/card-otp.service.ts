import { cardCondition } from '../ledger/rules/posting-rules.js';
import { AppError } from '../shared/errors.js';
import type { Deps } from '../store/deps.js';
import { recordOtpIssue } from './card-otp.store.js';
import { findCard } from './card.store.js';
import { createOtp } from './profile.service.js';

/**
 * A one-time password for the consumer of a customer card, issued by a portal user
 * (docs/decisions.md, "Gift-card privacy and hardened pages", one-time passwords). The password
 * pays from the consumer's balance at the till like the card itself, so it is a credential to
 * someone else's money: the route lets only owners issue it, and the issue is recorded with the
 * issuing portal user in the same transaction that stores the password, so none exists without
 * its record. Only a usable customer card linked to a profile: a gift card never identifies a
 * consumer, and a locked or expired card (perhaps reported lost) issues nothing (13002).
 */
export async function issueCardOtp(
  deps: Deps,
  merchantId: number,
  tokenId: string,
  portalUserId: number,
): Promise<{ otp: string; expiresAtMs: number }> {
  const nowMs = deps.clock.nowMs();
  return deps.db.transaction().execute(async (trx) => {
    const card = await findCard(trx, merchantId, tokenId, { forUpdate: true });
    if (!card || card.state === 'released' || card.tokenType !== 0 || card.profileId === null) {
      throw new AppError('cardUnknown');
    }
    if (cardCondition(card, nowMs) !== 'usable') throw new AppError('cardLocked');
    const issued = await createOtp({ db: trx, clock: deps.clock }, card.profileId);
    await recordOtpIssue(trx, {
      merchantId,
      cardId: card.cardId,
      profileId: card.profileId,
      portalUserId,
      issuedAtMs: nowMs,
      expiresAtMs: issued.expiresAtMs,
    });
    return issued;
  });
}
