import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { type CardView, findCard } from './card.store.js';

/**
 * Unlock, the inverse of lock (docs/decisions.md "Cards and balances", lock and unlock): the card
 * is `registered` again and the account it pays from is opened again, when it is its own (a linked
 * customer card pays from its profile's account, and its own one was closed when it was linked).
 * Who unlocked it, when and why (when a reason is given) is recorded. Unlocking a card that is not locked changes and records
 * nothing and answers it as it is (a retried unlock succeeds); a released or unknown card is 13000.
 * Only the merchant portal unlocks: the POS interface has no such operation.
 */
export async function unlockCard(
  db: Kysely<DB>,
  merchantId: number,
  tokenId: string,
  by: { readonly portalUserId: number; readonly reason?: string | null },
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
    await recordLockEvent(trx, merchantId, card.cardId, 'unlock', { ...by, trackingUnitId: null }, now);
    const unlocked = await findCard(trx, merchantId, tokenId);
    if (!unlocked) throw new Error('unlocked card not found');
    return unlocked;
  });
}

/** Who locked or unlocked a card: a portal user, or the till that locked it through the POS interface. */
export interface LockActor {
  readonly portalUserId: number | null;
  readonly trackingUnitId: string | null;
  readonly reason?: string | null;
}

/** One lock or unlock in the card's history (migration 0023), in the transaction that changed the card. */
export async function recordLockEvent(
  trx: Transaction<DB>,
  merchantId: number,
  cardId: number,
  action: 'lock' | 'unlock',
  by: LockActor,
  at: Date,
): Promise<void> {
  const reason = by.reason?.trim() || null;
  await trx
    .insertInto('card_lock_events')
    .values({
      merchant_id: merchantId,
      card_id: cardId,
      action,
      portal_user_id: by.portalUserId,
      tracking_unit_id: by.portalUserId === null ? by.trackingUnitId : null,
      reason,
      at,
    })
    .execute();
}
