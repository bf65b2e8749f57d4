import type { PageRoute } from './campaign-pages.routes.js';
import { RECEIPT_MAIL_FILTERS } from '../notifications/purchase-notification.store.js';
import { checkoutClientsView } from './developers.routes.js';
import { type OrderQuery, orderSearchView, orderTotalsView } from './order-views.js';
import { type OrderPage, orderSearchBody } from './page-orders.js';
import { orderDetailView } from './order-detail-views.js';
import { orderDetailBody } from './page-order.js';
import { requireSession as session } from './session.js';
import { searchDays, searchId, searchText } from './search-days.js';
import { type ViewDeps, everyRow, found } from './views.js';

const STATES = ['completed', 'partially_refunded', 'refunded'] as const;

/**
 * The checkout order search's page (docs/decisions.md, "Finding checkout orders"): its days are
 * the merchant's, as the basket search's (`searchDays`).
 */
export function orderPageRoutes(deps: ViewDeps, simple: PageRoute): void {
  simple('/orders', 'orders', async (request, u) => {
    const q = request.query as Record<string, string>;
    const query: OrderQuery = {
      limit: 50,
      ...searchDays(q, u.merchant.timeZone),
      number: searchText(q.number, 200),
      clientId: searchId(q.clientId),
      profileId: searchId(q.profileId),
      state: STATES.find((s) => s === q.state),
      receiptMail: RECEIPT_MAIL_FILTERS.find((k) => k === q.receiptMail),
      cursor: searchText(q.cursor, 400),
    };
    // A filter the search cannot take finds nothing, as the API refuses it.
    const refused = ['number', 'clientId', 'profileId', 'state', 'receiptMail', 'cursor'].some(
      (k) => q[k] !== undefined && q[k] !== '' && query[k as keyof OrderQuery] === undefined,
    );
    const s = session(request);
    const r = refused ? null : await found(orderSearchView(deps, s, query), 400);
    const shops = await everyRow((p) => checkoutClientsView(deps, s, p), 1_000);
    const page: OrderPage = r ?? { data: [], hasMore: false, nextCursor: null };
    // More than one page: what all of them add up to, beside what this one shows.
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    const totals = r && (r.hasMore || query.cursor) ? await orderTotalsView(deps, s, filters) : null;
    return orderSearchBody(
      page,
      u,
      q,
      shops.map((c) => ({ id: c.id, name: c.name })),
      totals,
      filters,
    );
  });

  // One order (docs/decisions.md, "One checkout order in the portal"); unknown: the page not found.
  simple('/orders/:id', 'orders', async (request, u) => {
    const id = (request.params as { id: string }).id;
    if (id.length > 100) return null;
    const d = await found(orderDetailView(deps, session(request), id));
    return d ? { title: d.basketId, body: orderDetailBody(d, u) } : null;
  });
}
