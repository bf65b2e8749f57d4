import type { Kysely } from 'kysely';
import { findCard } from '../cards/card.store.js';
import { profileEmailChanges } from '../cards/profile.store.js';
import { undeliveredReceipts } from '../notifications/receipt-resend.service.js';
import { welcomeMailState } from '../notifications/welcome-mail.store.js';
import { correctionReasons } from '../portal-users/portal-user.store.js';
import type { Session } from '../portal-users/portal-auth.service.js';
import { customerCampaignUses } from '../reports/campaign-uses.store.js';
import { tierStatuses } from '../loyalty/tiers.store.js';
import { searchBaskets } from '../reports/basket-search.store.js';
import { cardHistory } from '../reports/card-history.js';
import {
  type BalanceMovement,
  balanceMovements,
  cardPurchases,
  chargedOrders,
  profileView,
} from '../reports/customer.store.js';
import { AppError } from '../shared/errors.js';
import {
  type CreatedRange,
  type PageQuery,
  type PageRequest,
  afterId,
  createdRange,
  pageOf,
  pageRequest,
} from '../shared/paging.js';
import { type PointsOwner, pointsMovements } from '../reports/card-history.store.js';
import { type ConsumerOrder, searchConsumers } from '../reports/consumer-search.store.js';
import { pointsHeld } from '../reports/points-held.store.js';
import type { DB } from '../store/schema.js';
import { receiptMailOut } from './basket-views.js';
import type { ViewDeps } from './views.js';

/** A card as the portal shows it: state, balance, points, holder, purchases and every movement. */
export async function cardView(deps: ViewDeps, s: Session, tokenId: string) {
  const { db } = deps;
  const card = await shownCard(db, s.merchantId, tokenId);
  const history = await cardHistory(deps.services.reports, s.merchantId, card);
  const profile = card.profileId === null ? null : await profileView(db, s.merchantId, card.profileId);
  const holder = profile && {
    profileId: profile.profileId,
    fullName: profile.fullName,
    email: profile.email,
  };
  const purchases = await cardPurchases(db, s.merchantId, card, s.timeZone);
  const orders = card.profileId === null ? [] : await chargedOrders(db, s.merchantId, card.profileId, 10);
  const recent = await searchBaskets(db, {
    merchantId: s.merchantId,
    fromMs: null,
    toMs: null,
    outletId: null,
    trackingUnitId: null,
    card: card.tokenId,
    number: null,
    state: null,
    receiptMail: null,
    limit: 10,
    after: null,
  });
  const balanceHistory = await balanceHistoryPage(db, s.merchantId, card.accountId, NEWEST);
  const reasons = await correctionReasons(
    db,
    s.merchantId,
    history.transfers.map((t) => t.transactionId),
  );
  return {
    tokenId: card.tokenId,
    tokenType: card.tokenType === 1 ? ('gift' as const) : ('customer' as const),
    state: card.state,
    currency: card.currency,
    balanceMinor: Number(card.balanceMinor),
    profileId: card.profileId,
    points: history.points,
    transfers: history.transfers.map((t) => ({ ...t, reason: reasons.get(t.transactionId) ?? null })),
    pointsHistory: history.pointsHistory,
    locks: history.locks,
    otps: history.otps,
    holder,
    purchases,
    recentBaskets: recent.slice(0, 10),
    recentOrders: orders,
    balanceHistory: balanceHistory.data,
  };
}

/** A customer (profile): its cards, points and balance with the balance's history. */
export async function customerView(deps: ViewDeps, s: Session, profileId: number) {
  const { db } = deps;
  const p = await shownProfile(db, s.merchantId, profileId);
  const points = await pointsHeld(db, s.merchantId, p.profileId, deps.clock.nowMs());
  const { accountId, ...rest } = p;
  const balanceHistory = (await balanceHistoryPage(db, s.merchantId, accountId, NEWEST)).data;
  const pointsHistory = (await pointsHistoryPage(db, s.merchantId, { customerId: p.profileId }, NEWEST)).data;
  const tiers = await tierStatuses(db, s.merchantId, { profileId: p.profileId }, deps.clock.nowMs());
  const campaignUses = await customerCampaignUses(db, s.merchantId, p.profileId, deps.clock.nowMs());
  const emailChanges = (await profileEmailChanges(db, s.merchantId, p.profileId)).map((c) => ({
    oldEmail: c.old_email,
    newEmail: c.new_email,
    at: new Date(c.at).toISOString(),
    by: c.by,
  }));
  const undelivered = await undeliveredReceipts(db, { merchantId: s.merchantId, profileId: p.profileId });
  const welcomeMail = receiptMailOut(await welcomeMailState(db, s.merchantId, p.profileId));
  return {
    ...rest,
    points,
    balanceHistory,
    pointsHistory,
    tiers,
    campaignUses,
    emailChanges,
    undeliveredReceipts: undelivered.length,
    welcomeMail,
  };
}

const BALANCE_LIST = 'balanceHistory';
const POINTS_LIST = 'pointsHistory';
/** The newest movements a card's and a customer's answers carry; every one page by page. */
const NEWEST: PageRequest = { limit: 100, after: null };

/** A card the merchant has and has not released; 404 `card_unknown` otherwise. */
async function shownCard(db: Kysely<DB>, merchantId: number, tokenId: string) {
  const card = await findCard(db, merchantId, tokenId);
  if (!card || card.state === 'released') throw new AppError('cardUnknown');
  return card;
}

/** One of the merchant's customers; 404 `not_found` otherwise. */
async function shownProfile(db: Kysely<DB>, merchantId: number, profileId: number) {
  const p = await profileView(db, merchantId, profileId);
  if (!p) throw new AppError('notFound', 'No customer under this id.');
  return p;
}

/** A history's query: its page, and the time its movements were booked in (createdTo exclusive). */
export type HistoryQuery = PageQuery & { createdFrom?: string; createdTo?: string };

/** A history's page and time range, checked before anything is read (400 on a bad one). */
function historyRequest(list: string, query: HistoryQuery) {
  return { page: pageRequest(list, query, ['number']), range: createdRange(query) };
}

/** The balance history of the account a card pays from, newest first, a page at a time. */
export async function cardBalanceHistoryView(
  deps: ViewDeps,
  s: Session,
  tokenId: string,
  query: HistoryQuery,
) {
  const { page, range } = historyRequest(BALANCE_LIST, query);
  const card = await shownCard(deps.db, s.merchantId, tokenId);
  return balanceHistoryPage(deps.db, s.merchantId, card.accountId, page, range);
}

/** A customer's balance history, newest first, a page at a time. */
export async function profileBalanceHistoryView(
  deps: ViewDeps,
  s: Session,
  profileId: number,
  query: HistoryQuery,
) {
  const { page, range } = historyRequest(BALANCE_LIST, query);
  const p = await shownProfile(deps.db, s.merchantId, profileId);
  return balanceHistoryPage(deps.db, s.merchantId, p.accountId, page, range);
}

/** A card's points movements (and its customer's), newest first, a page at a time. */
export async function cardPointsHistoryView(
  deps: ViewDeps,
  s: Session,
  tokenId: string,
  query: HistoryQuery,
) {
  const { page, range } = historyRequest(POINTS_LIST, query);
  const card = await shownCard(deps.db, s.merchantId, tokenId);
  return pointsHistoryPage(deps.db, s.merchantId, card, page, range);
}

/** A customer's points movements (and those of the cards they hold), newest first, a page at a time. */
export async function profilePointsHistoryView(
  deps: ViewDeps,
  s: Session,
  profileId: number,
  query: HistoryQuery,
) {
  const { page, range } = historyRequest(POINTS_LIST, query);
  const p = await shownProfile(deps.db, s.merchantId, profileId);
  return pointsHistoryPage(deps.db, s.merchantId, { customerId: p.profileId }, page, range);
}

async function pointsHistoryPage(
  db: Kysely<DB>,
  merchantId: number,
  owner: PointsOwner,
  page: PageRequest,
  range: CreatedRange = {},
) {
  const rows = await pointsMovements(db, merchantId, owner, {
    limit: page.limit + 1,
    beforeId: afterId(page),
    ...range,
  });
  return pageOf(
    POINTS_LIST,
    rows,
    page.limit,
    (m) => [m.id],
    ({ id: _id, ...m }) => m,
  );
}

async function balanceHistoryPage(
  db: Kysely<DB>,
  merchantId: number,
  accountId: number,
  page: PageRequest,
  range: CreatedRange = {},
) {
  const rows = await balanceMovements(db, merchantId, accountId, {
    limit: page.limit + 1,
    beforeId: afterId(page),
    ...range,
  });
  return pageOf(
    BALANCE_LIST,
    await withCorrections(db, merchantId, rows),
    page.limit,
    (m) => [m.id],
    ({ id: _id, ...m }) => m,
  );
}

/** A portal correction is booked as the operator's; its recorded reason tells it apart. */
async function withCorrections<M extends BalanceMovement>(
  db: Kysely<DB>,
  merchantId: number,
  movements: M[],
) {
  const reasons = await correctionReasons(
    db,
    merchantId,
    movements.map((m) => m.transactionId),
  );
  return movements.map((m) => {
    const corrected = reasons.has(m.transactionId);
    return {
      ...m,
      channel: corrected ? ('portal' as const) : m.channel,
      reason: reasons.get(m.transactionId) ?? null,
    };
  });
}

/**
 * Consumers by part of their name or e-mail (`q` of 2 to 100 characters), or all, by id or by
 * balance (highest first), a page at a time; each order's cursors are its own list's.
 */
export async function consumerSearchView(
  deps: ViewDeps,
  s: Session,
  query: { q?: string; sort?: ConsumerOrder; limit?: number; cursor?: string },
) {
  const order = query.sort ?? 'id';
  const list = order === 'balance' ? 'consumersByBalance' : 'consumers';
  const page = pageRequest(list, query, order === 'balance' ? ['number', 'number'] : ['number']);
  const rows = await searchConsumers(deps.db, s.merchantId, query.q ?? null, page, order);
  return pageOf(
    list,
    rows,
    page.limit,
    (c) => (order === 'balance' ? [c.balanceMinor, c.profileId] : [c.profileId]),
    (c) => c,
  );
}
