import type { PageRoute } from './campaign-pages.routes.js';
import {
  cardBalanceHistoryView,
  cardPointsHistoryView,
  cardView,
  consumerSearchView,
  customerView,
  profileBalanceHistoryView,
  profilePointsHistoryView,
} from './customer-views.js';
import { type ConsumerList, cardBody } from './page-cards.js';
import { profileBody } from './page-customers.js';
import type { HistoryListing } from './page-history.js';
import { enrolBody } from './page-enrol.js';
import { enrolTranslator } from './strings-enrol.js';
import { searchDays } from './search-days.js';
import { requireSession as session } from './session.js';
import { type ViewDeps, found } from './views.js';
import type { PageQuery } from '../shared/paging.js';

/**
 * The card page (find a card or a consumer; a card's figures and histories) and the customer's
 * page, their histories 20 movements a page and cut at a day (docs/decisions.md, "A card's whole
 * history").
 */
export function cardPageRoutes(deps: ViewDeps, simple: PageRoute): void {
  simple('/cards', 'cards', async (request, u) => {
    const query = request.query as Record<string, string>;
    const tokenId = query.tokenId ?? '';
    const all = query.all === '1';
    const q = all ? '' : (query.q ?? '').slice(0, 100);
    const cursor = query.consumersCursor || null;
    const sort = query.sort === 'balance' ? 'balance' : 'id';
    const consumers: ConsumerList = { q, all, sort, found: null, cursor, nextCursor: null };
    // A search of two letters and more, or every customer ("All customers"), 50 a page.
    if (all || q.length >= 2) {
      const ask = { ...(all ? {} : { q }), sort, limit: 50, ...(cursor ? { cursor } : {}) } as const;
      const r = await found(consumerSearchView(deps, session(request), ask), 400);
      consumers.found = r?.data ?? [];
      consumers.nextCursor = r?.nextCursor ?? null;
    }
    if (!tokenId) return cardBody(null, '', u, false, consumers);
    const s = session(request);
    const card = await found(cardView(deps, s, tokenId));
    if (!card) return cardBody(null, tokenId, u, true);
    const until = historyUntil(query.until, u.merchant.timeZone);
    const [balance, points] = await Promise.all([
      historyPage(
        (page) => cardBalanceHistoryView(deps, s, tokenId, { ...page, ...until.range }),
        query.balanceCursor,
      ),
      historyPage(
        (page) => cardPointsHistoryView(deps, s, tokenId, { ...page, ...until.range }),
        query.pointsCursor,
      ),
    ]);
    return cardBody({ card, balance, points, until: until.day }, tokenId, u, false);
  });

  simple('/profiles/new', 'cards', async (request, u) => {
    const query = request.query as Record<string, string | undefined>;
    const field = (name: string, max: number) =>
      typeof query[name] === 'string' ? query[name].slice(0, max) : '';
    const prefill = {
      fullName: field('fullName', 200),
      email: field('email', 320),
      tokenId: field('tokenId', 200),
    };
    return { title: enrolTranslator(u.lang)('enrolTitle'), body: enrolBody(u, prefill) };
  });

  simple('/profiles/:id', 'cards', async (request, u) => {
    const id = (request.params as { id: string }).id;
    if (!/^[1-9][0-9]{0,15}$/.test(id)) return null;
    const s = session(request);
    const p = await found(customerView(deps, s, Number(id)));
    if (!p) return null;
    const query = request.query as Record<string, string>;
    const until = historyUntil(query.until, u.merchant.timeZone);
    const [balance, points] = await Promise.all([
      historyPage(
        (page) => profileBalanceHistoryView(deps, s, p.profileId, { ...page, ...until.range }),
        query.balanceCursor,
      ),
      historyPage(
        (page) => profilePointsHistoryView(deps, s, p.profileId, { ...page, ...until.range }),
        query.pointsCursor,
      ),
    ]);
    return {
      title: p.fullName ?? p.email ?? `#${id}`,
      body: profileBody(p, balance, points, until.day, u),
    };
  });
}

/**
 * The page of a history a portal page shows 20 movements at a time, from the cursor in its link; a
 * cursor the list did not give out (an edited link) shows none, with the link back to the newest.
 */
async function historyPage<T>(
  view: (page: PageQuery) => Promise<{ data: T[]; nextCursor: string | null }>,
  text: string | undefined,
): Promise<HistoryListing<T>> {
  const cursor = /^[A-Za-z0-9_-]{1,400}$/.test(text ?? '') ? String(text) : '';
  const page = await found(view({ limit: 20, ...(cursor ? { cursor } : {}) }), 400);
  return { data: page?.data ?? [], nextCursor: page?.nextCursor ?? null, cursor };
}

/**
 * The last day a page's histories show (`until`, a day of the merchant's calendar; '' for none)
 * and the time filter it is: movements booked before the start of the day after it.
 */
function historyUntil(
  text: string | undefined,
  timeZone: string,
): { day: string; range: { createdTo?: string } } {
  const to = searchDays({ to: text }, timeZone).to;
  return to === undefined ? { day: '', range: {} } : { day: String(text), range: { createdTo: to } };
}
