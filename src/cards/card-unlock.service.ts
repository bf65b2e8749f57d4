import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { type CardView, findCard } from './card.store.js';

/**
 * Unlock, the inverse of lock (docs/decisions.md "Cards and balances", lock and unlock): the card
 * is `registered` again and the account it pays from is opened again, when it is its own (a linked
 * customer card pays from its profile's account, and its own one was closed when it was linked).
 * Who unlocked it and when is recorded. Unlocking a card that is not locked changes and records
 * nothing and answers it as it is (a retried unlock succeeds); a released or unknown card is 13000.
 * Only the merchant portal unlocks: the POS interface has no such operation.
 */
export async function unlockCard(
  db: Kysely<DB>,
  merchantId: number,
  tokenId: string,
  by: { readonly portalUserId: number },
  nowMs: number,
): Promise<CardView> {
  return db.transaction().execute(async (trx) => {
    const card = await findCard(trx, merchantId, tokenId, { forUpdate: true });
    if (!card || card.state === 'released') throw new AppError('cardUnknown');
    if (card.state !== 'locked') return card;
    const now = new Date(nowMs);
    await trx
      .updateTable('cards')
      .set({ state: 'registered', updated_at: now })
      .where('id', '=', card.cardId)
      .execute();
    if (card.accountId === card.ownAccountId) {
      await trx
        .updateTable('ledger_accounts')
        .set({ status: 'open' })
        .where('id', '=', card.ownAccountId)
        .execute();
    }
    await trx
      .insertInto('card_unlocks')
      .values({ merchant_id: merchantId, card_id: card.cardId, user_id: by.portalUserId, unlocked_at: now })
      .execute();
    const unlocked = await findCard(trx, merchantId, tokenId);
    if (!unlocked) throw new Error('unlocked card not found');
    return unlocked;
  });
}
