import { randomUUID } from 'node:crypto';
import { AppError, errors } from '../shared/errors.js';
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
  correction: { tokenId: string; amount: string; reason: string; portalUserId: number; requestId?: string },
): Promise<void> {
  const { tokenId, amount, reason } = correction;
  const negative = amount.startsWith('-');
  // The request's own id makes the posting's: sent again, the posting replays (docs/decisions.md,
  // "A balance correction sent twice").
  const transactionId = `portal-${correction.requestId?.toLowerCase() ?? randomUUID()}`;
  const record = {
    transactionId,
    merchantId: caller.merchantId,
    userId: correction.portalUserId,
    tokenId,
    reason,
    now: new Date(deps.clock.nowMs()),
  };
  const recorded = await recordCorrection(deps.db, record);
  if (recorded === 'other') throw new AppError('portalRequestReused');
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
    if (recorded === 'recorded') await forgetCorrection(deps.db, caller.merchantId, transactionId);
    // The same request id for another amount or direction.
    if (err instanceof AppError && err.entry === errors.transactionIdReused) {
      throw new AppError('portalRequestReused');
    }
    throw err;
  }
  // Sent twice at once, the first request refused and forgot the reason while this one posted:
  // the posting keeps its reason.
  if (recorded === 'same') await recordCorrection(deps.db, record);
}
