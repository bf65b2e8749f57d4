import { AppError } from '../shared/errors.js';
import type { Deps } from '../store/deps.js';
import { setAccountStatus } from '../ledger/ledger.store.js';
import { type CardView, findCard, recordLockEvent, setCardState } from './card.store.js';

/**
 * Unlock, the inverse of lock (docs/decisions.md "Cards and balances", lock and unlock): the card
 * is `registered` again and the account it pays from is opened again, when it is its own (a linked
 * customer card pays from its profile's account, and its own one was closed when it was linked).
 * Who unlocked it, when and why (when a reason is given) is recorded. Unlocking a card that is not locked changes and records
 * nothing and answers it as it is (a retried unlock succeeds); a released or unknown card is 13000.
 * Only the merchant portal unlocks: the POS interface has no such operation.
 */
export async function unlockCard(
  { db, clock }: Deps,
  merchantId: number,
  tokenId: string,
  by: { readonly portalUserId: number; readonly reason?: string | null },
): Promise<CardView> {
  const nowMs = clock.nowMs();
  return db.transaction().execute(async (trx) => {
    const card = await findCard(trx, merchantId, tokenId, { forUpdate: true });
    if (!card || card.state === 'released') throw new AppError('cardUnknown');
    if (card.state !== 'locked') return card;
    await setCardState(trx, card.cardId, 'registered', nowMs);
    if (card.accountId === card.ownAccountId) await setAccountStatus(trx, card.ownAccountId, 'open');
    await recordLockEvent(trx, merchantId, card.cardId, 'unlock', { ...by, trackingUnitId: null }, nowMs);
    const unlocked = await findCard(trx, merchantId, tokenId);
    if (!unlocked) throw new Error('unlocked card not found');
    return unlocked;
  });
}
