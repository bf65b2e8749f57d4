import type { Language } from '../receipts/receipt-text.js';
import type { ReceiptView } from '../receipts/receipt-view.js';
import { AppError, errors } from '../shared/errors.js';
import { type Page, type PageRequest, afterId, pageOf, pageRequest } from '../shared/paging.js';
import { addDays, isCalendarDay, localInstantMs } from '../shared/time.js';
import type { Deps } from '../store/deps.js';
import { type Preferences, addPushSubscription, setPreferences } from './consumer.store.js';
import { type AccountOverview, accountOverview } from './consumer-account.store.js';
import type { Movement } from './consumer-movements.store.js';
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

/**
 * The account's page: the overview, its balance's movements a page at a time, and the day both
 * lists are cut at (`until`, a day of the merchant's calendar, and the start of the day after it).
 */
export type AccountView = Omit<AccountOverview, 'movements'> & {
  readonly movements: Page<Movement>;
  readonly until: { readonly day: string; readonly beforeMs: number } | null;
};

const MOVEMENTS = 'meBalance';
const MOVEMENTS_PER_PAGE = 20;

/** Which page of the account a link asks for: the movements' cursor, the day the lists end. */
export interface AccountQuery {
  readonly balanceCursor?: string | undefined;
  readonly until?: string | undefined;
}

/**
 * What the portal shows of a signed-in profile, as of now, with the page of the balance's
 * movements that `balanceCursor` names (the newest without one), those booked up to the end of
 * `until` when it is a day of the calendar (any other text is left out, as on the merchant's
 * pages). A cursor this list did not give out (a link edited by hand) shows no movements, as the
 * merchant's pages do ("A card's whole history"): the page around them stands, with its link back
 * to the newest.
 */
export async function consumerAccount(
  deps: Deps,
  profileId: number,
  query: AccountQuery = {},
): Promise<AccountView | undefined> {
  const page = movementsRequest(query.balanceCursor);
  const day = query.until !== undefined && isCalendarDay(query.until) ? query.until : null;
  const cut = (timeZone: string) =>
    day === null ? null : { day, beforeMs: localInstantMs(addDays(day, 1), 0, timeZone) };
  const overview = await accountOverview(deps.db, profileId, deps.clock.nowMs(), (timeZone) => {
    const until = cut(timeZone);
    if (page === null) return { limit: 0, beforeId: null };
    const statement = { limit: page.limit + 1, beforeId: afterId(page) };
    return until === null ? statement : { ...statement, toMs: until.beforeMs };
  });
  if (!overview) return undefined;
  return {
    ...overview,
    movements: pageOf(
      MOVEMENTS,
      overview.movements,
      page?.limit ?? 0,
      (m) => [m.id],
      (m) => m,
    ),
    until: cut(overview.timeZone),
  };
}

/** The page of movements a cursor names; null for one this list did not give out. */
function movementsRequest(cursor: string | undefined): PageRequest | null {
  try {
    return pageRequest(MOVEMENTS, { limit: MOVEMENTS_PER_PAGE, cursor }, ['number']);
  } catch (err) {
    if (err instanceof AppError && err.entry === errors.invalidCursor) return null;
    throw err;
  }
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

/**
 * The consumer's notification switches, and the language they chose for their receipts, mails and
 * page (docs/decisions.md, "The consumer's language"); null keeps the profile's as it is.
 */
export function savePreferences(
  deps: Deps,
  merchantId: number,
  profileId: number,
  prefs: Preferences,
  language: Language | null,
): Promise<void> {
  return setPreferences(deps.db, merchantId, profileId, prefs, new Date(deps.clock.nowMs()), language);
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
 * the receipt never disagree. A purchase whose receipt cannot be read is left out. With
 * `beforeMs`, only those sold before it.
 */
export async function consumerPurchases(
  deps: ReceiptDeps,
  profileId: number,
  page: number,
  beforeMs?: number,
): Promise<{ rows: PurchaseEntry[]; hasMore: boolean }> {
  const { rows, hasMore } = await purchasesOf(deps.db, profileId, page, beforeMs);
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
