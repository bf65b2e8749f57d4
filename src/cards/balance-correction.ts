import { randomUUID } from 'node:crypto';
import { type CardCaller, type CardDeps, changeBalance } from './card.service.js';
import { forgetCorrection, recordCorrection } from '../portal-users/portal-user.store.js';

/**
 * A portal owner corrects a card's balance with a reason: a top-up (positive amount) or a
 * withdrawal (negative) on the ledger, never an edit. The reason is written first, under the
 * transfer's own transactionId: a posting never exists without its reason, and a reason whose
 * posting was refused (or never made, after a crash) names no transfer and is never shown
 * (docs/decisions.md, "Merchant portal").
 */
export async function correctBalance(
  deps: CardDeps,
  caller: CardCaller,
  correction: { tokenId: string; amount: string; reason: string; portalUserId: number },
): Promise<void> {
  const { tokenId, amount, reason } = correction;
  const negative = amount.startsWith('-');
  const transactionId = `portal-${randomUUID()}`;
  await recordCorrection(deps.db, {
    transactionId,
    merchantId: caller.merchantId,
    userId: correction.portalUserId,
    tokenId,
    reason,
    now: new Date(deps.clock.nowMs()),
  });
  try {
    await changeBalance(
      deps,
      caller,
      negative ? 'withdrawal' : 'top_up',
      tokenId,
      negative ? amount.slice(1) : amount,
      transactionId,
      { by: 'operator', sha256: null },
    );
  } catch (err) {
    await forgetCorrection(deps.db, caller.merchantId, transactionId);
    throw err;
  }
}
