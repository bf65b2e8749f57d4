import type { Deps } from '../store/deps.js';
import { type CheckoutClientListing, revokeCheckoutClientRow } from './checkout-client.store.js';

/**
 * Revokes a checkout client of the merchant now (revoking a revoked one keeps its first time) and
 * answers it; null when the merchant has no client under this id.
 */
export function revokeCheckoutClient(
  deps: Deps,
  merchantId: number,
  id: number,
): Promise<CheckoutClientListing | null> {
  return revokeCheckoutClientRow(deps.db, merchantId, id, deps.clock.nowMs());
}
