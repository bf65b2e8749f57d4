import type { ReceiptView } from '../receipts/receipt-view.js';
import type { Deps } from '../store/deps.js';
import { type Preferences, addPushSubscription, setPreferences } from './consumer.store.js';
import { type AccountOverview, accountOverview } from './consumer-account.store.js';
import {
  type PortalProfile,
  type PortalSession,
  createSignInWithinLimit,
  redeemSignIn,
  sessionOf,
} from './consumer-auth.store.js';
import { type PurchaseKey, purchasesOf } from './consumer-purchases.store.js';
import type { PushTarget } from './push.js';
import type { ReceiptDeps } from './receipt-lookup.js';

/**
 * The consumer portal's use cases (docs/decisions.md, "Notifications, receipts and the consumer
 * portal"): the time of each comes from the clock of the deps; the queries are the stores'.
 */

/** The session of a cookie's id, while it lives. */
export function consumerSession(deps: Deps, sessionId: string): Promise<PortalSession | undefined> {
  return sessionOf(deps.db, sessionId, deps.clock.nowMs());
}

/** What the portal shows of a signed-in profile, as of now. */
export function consumerAccount(deps: Deps, profileId: number): Promise<AccountOverview | undefined> {
  return accountOverview(deps.db, profileId, deps.clock.nowMs());
}

/** A sign-in link's token for the profile; null when it was sent its quota of links lately. */
export function issueSignIn(deps: Deps, profile: PortalProfile): Promise<string | null> {
  return createSignInWithinLimit(deps.db, profile, deps.clock.nowMs());
}

/** Redeems a sign-in link's token for a new session; undefined when it is unknown, spent or expired. */
export function openSignIn(
  deps: Deps,
  token: string,
): Promise<{ sessionId: string; session: PortalSession } | undefined> {
  return redeemSignIn(deps.db, token, deps.clock.nowMs());
}

export function savePreferences(
  deps: Deps,
  merchantId: number,
  profileId: number,
  prefs: Preferences,
): Promise<void> {
  return setPreferences(deps.db, merchantId, profileId, prefs, new Date(deps.clock.nowMs()));
}

export function subscribePush(
  deps: Deps,
  merchantId: number,
  profileId: number,
  target: PushTarget,
): Promise<void> {
  return addPushSubscription(deps.db, merchantId, profileId, target, new Date(deps.clock.nowMs()));
}

/** A purchase as the portal lists it: where and when, and its figures as its receipt shows them. */
export interface PurchaseEntry extends PurchaseKey {
  readonly currency: string;
  readonly totalMinor: number;
  readonly points: ReceiptView['points'];
  readonly payments: ReceiptView['payments'];
  readonly returns: ReceiptView['returns'];
}

/**
 * One page of the profile's purchases, baskets and checkout orders together, newest first; each
 * one's total, points, payments, returns and refunds are read from its receipt, so the list and
 * the receipt never disagree. A purchase whose receipt cannot be read is left out.
 */
export async function consumerPurchases(
  deps: ReceiptDeps,
  profileId: number,
  page: number,
): Promise<{ rows: PurchaseEntry[]; hasMore: boolean }> {
  const { rows, hasMore } = await purchasesOf(deps.db, profileId, page);
  const entries: PurchaseEntry[] = [];
  for (const key of rows) {
    const view = await deps.sources.get(key.kind)?.load(deps.db, key.merchantId, key.sourceRef);
    if (!view) continue;
    entries.push({
      ...key,
      currency: view.currency,
      totalMinor: view.totalGrossMinor,
      points: view.points,
      payments: view.payments,
      returns: view.returns,
    });
  }
  return { rows: entries, hasMore };
}
