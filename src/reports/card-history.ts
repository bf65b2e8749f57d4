import type { Deps } from '../store/deps.js';
import { cardHistoryAt } from './card-history.store.js';

/** A card's balance bookings, points movements and unlocks as of now, newest first, for the portal. */
export function cardHistory(
  deps: Deps,
  merchantId: number,
  card: { cardId: number; tokenId: string; profileId: number | null },
): ReturnType<typeof cardHistoryAt> {
  return cardHistoryAt(deps.db, merchantId, card, deps.clock.nowMs());
}
