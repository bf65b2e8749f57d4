import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import { type PageUser, dateTime, money, numberFormat } from './layout.js';
import { orderStateBadge } from './page-order.js';
import type { OrderListingSchema, OrderTotalsSchema } from './order-views.js';
import { orderTranslator } from './strings-orders.js';
import { translator } from './strings.js';
import { csvLink, numberAndDays, searchPager } from './page-search.js';
import { receiptMailSelect } from './page-receipt-mail.js';

type Order = Static<typeof OrderListingSchema>;
type OrderTotals = Static<typeof OrderTotalsSchema>;

export interface OrderPage {
  data: Order[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** The filters the page keeps from one page of the list to the next. */
const FILTERS = ['number', 'from', 'to', 'clientId', 'profileId', 'state', 'receiptMail'] as const;

/** A line of sums: the orders, what they came to, charged and refunded. */
function sumsLine(key: 'found' | 'foundAll', t: OrderTotals, currency: string, user: PageUser): string {
  const m = (minor: number) => money(minor, currency, user.lang);
  return orderTranslator(user.lang)(key, {
    n: numberFormat(user.lang, {}).format(t.orders),
    total: m(t.totalGrossMinor),
    charged: m(t.chargedMinor),
    refunded: m(t.refundedMinor),
  });
}

/** The page's sums, when its orders are of one currency (the merchant's). */
function pageSums(rows: Order[], user: PageUser): Html {
  const currency = rows[0]?.currency;
  if (currency === undefined || rows.some((r) => r.currency !== currency)) return html``;
  const sum = (pick: (r: Order) => number) => rows.reduce((a, r) => a + pick(r), 0);
  const totals = {
    orders: rows.length,
    totalGrossMinor: sum((r) => r.totalGrossMinor),
    chargedMinor: sum((r) => r.chargedMinor),
    refundedMinor: sum((r) => r.refundedMinor),
  };
  return html`<p class="muted" id="order-sums">${sumsLine('found', totals, currency, user)}</p>`;
}

/** When the orders found fill more than a page: what all of them add up to. */
function allSums(totals: OrderTotals | null, currency: string | undefined, user: PageUser): Html {
  if (totals === null || currency === undefined) return html``;
  return html`<p id="order-totals"><strong>${sumsLine('foundAll', totals, currency, user)}</strong></p>`;
}

/** When the list is one customer's (from the customer's page): whose, and the way back to all. */
function customerLine(page: OrderPage, user: PageUser, query: Record<string, string>): Html {
  const id = query.profileId;
  if (!id) return html``;
  const o = orderTranslator(user.lang);
  const name = page.data[0]?.customerName ?? `#${id}`;
  return html`<p class="muted" id="order-customer">
    ${o('onlyCustomer')} <a href="/portal/profiles/${id}">${name}</a> ·
    <a href="/portal/orders">${o('allOrders')}</a>
  </p>`;
}

/**
 * The checkout order search (docs/decisions.md, "Finding checkout orders"): the filters, the orders
 * newest first with their shop, customer, money and receipt, and the pager.
 */
export function orderSearchBody(
  page: OrderPage,
  user: PageUser,
  query: Record<string, string>,
  shops: { id: number; name: string }[],
  totals: OrderTotals | null = null,
  filters: Record<string, unknown> = {},
): Html {
  const t = translator(user.lang);
  const o = orderTranslator(user.lang);
  const selected = (on: boolean) => (on ? html`selected` : '');
  const filtered = FILTERS.some((k) => query[k]);
  const m = (minor: number, currency: string) => money(minor, currency, user.lang);
  return html` <form class="inline card" method="get" action="/portal/orders" role="search">
      ${numberAndDays(o('number'), query, t)}
      <label
        >${o('shop')}
        <select name="clientId">
          <option value="">${o('allShops')}</option>
          ${shops.map((s) => html`<option value="${s.id}" ${selected(String(s.id) === query.clientId)}>${s.name}</option>`)}
        </select></label
      >
      <label
        >${t('state')}
        <select name="state">
          <option value="">${o('anyState')}</option>
          <option value="completed" ${selected(query.state === 'completed')}>${o('stateCompleted')}</option>
          <option value="partially_refunded" ${selected(query.state === 'partially_refunded')}>
            ${o('statePartly')}
          </option>
          <option value="refunded" ${selected(query.state === 'refunded')}>${o('stateRefunded')}</option>
        </select></label
      >
      ${receiptMailSelect(query, user)}
      ${query.profileId ? html`<input type="hidden" name="profileId" value="${query.profileId}" />` : ''}
      <button type="submit">${t('search')}</button>
    </form>
    ${customerLine(page, user, query)}
    ${
      page.data.length === 0
        ? html`<p class="muted empty">${filtered ? o('noOrderFound') : o('noOrders')}</p>`
        : html`${allSums(totals, page.data[0]?.currency, user)} ${pageSums(page.data, user)}
            <div class="table-wrap">
              <table id="order-list" class="stack-on-phone">
                <thead>
                  <tr>
                    <th>${t('time')}</th>
                    <th>${o('orderNumber')}</th>
                    <th>${o('shop')}</th>
                    <th>${o('customer')}</th>
                    <th class="num">${t('total')}</th>
                    <th class="num">${o('charged')}</th>
                    <th class="num">${o('refunded')}</th>
                    <th>${t('state')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${page.data.map(
                    (x) =>
                      html`<tr>
                        <td data-label="${t('time')}">
                          ${dateTime(x.createdAt, user.lang, user.merchant.timeZone)}
                        </td>
                        <td class="url order-key phone-wide" data-label="${o('orderNumber')}">
                          <a href="/portal/orders/${encodeURIComponent(x.orderId)}">${x.basketId}</a
                          ><br /><small class="muted">${x.orderId}</small>
                        </td>
                        <td data-label="${o('shop')}">${x.shop ?? `#${x.clientId}`}</td>
                        <td data-label="${o('customer')}">
                          <a href="/portal/profiles/${x.profileId}">${x.customerName ?? `#${x.profileId}`}</a>
                        </td>
                        <td class="num" data-label="${t('total')}">${m(x.totalGrossMinor, x.currency)}</td>
                        <td class="num" data-label="${o('charged')}">${m(x.chargedMinor, x.currency)}</td>
                        ${
                          x.refundedMinor > 0
                            ? html`<td class="num" data-label="${o('refunded')}">
                                ${m(x.refundedMinor, x.currency)}
                              </td>`
                            : html`<td class="num blank"></td>`
                        }
                        <td class="phone-first" data-label="${t('state')}">
                          ${orderStateBadge(x.state, user)}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
    }
    ${searchPager('/portal/orders', t('orders'), query, FILTERS, page, {
      first: o('firstPage'),
      next: o('nextPage'),
    })}
    ${csvLink('/portal/api/v1/orders.csv', filters, o('downloadCsv'), page.data.length > 0)}`;
}
