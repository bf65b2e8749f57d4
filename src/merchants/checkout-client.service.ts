import type { Deps } from '../store/deps.js';
import {
  type CheckoutClientListing,
  createCheckoutClientRow,
  revokeCheckoutClientRow,
} from './checkout-client.store.js';

/**
 * Issues a checkout client of the merchant: its access token and security secret, answered once.
 * Its creation is stamped on the service's clock, as its revocation is, so that one client's
 * times never come from two clocks.
 */
export function createCheckoutClient(
  deps: Deps,
  merchantId: number,
  name: string,
): Promise<{ id: number; accessToken: string; securitySecret: string }> {
  return createCheckoutClientRow(deps.db, merchantId, name, deps.clock.nowMs());
}

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
