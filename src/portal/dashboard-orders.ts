import type { PortalLang } from '../portal-users/portal-user.store.js';
import type { Dashboard } from './dashboard.routes.js';
import { change, count, kpi } from './dashboard-format.js';
import { undeliveredMailsNotice } from './dashboard-notices.js';
import { type Html, html } from './html.js';
import { money } from './layout.js';
import type { DashboardTranslate } from './strings-dashboard.js';

type Orders = NonNullable<Dashboard['orders']>;

/**
 * The dashboard's checkout orders (docs/decisions.md, "Checkout orders on the dashboard"): the
 * period's figures beside the tills', with the change, and per shop a row that opens the order
 * list of the period and the shop. Not shown with an outlet chosen (orders have none) nor to a
 * merchant without checkout clients.
 */
export function orderFigures(d: Dashboard, lang: PortalLang, t: DashboardTranslate): Html {
  const o = d.orders;
  if (o === null || o.byShop.length === 0) return html``;
  const m = (minor: number) => money(minor, d.currency, lang);
  const now = o.totals;
  const before = o.previous;
  const list = (clientId: number | null) => {
    const q = new URLSearchParams({ from: d.from, to: d.to });
    if (clientId !== null) q.set('clientId', String(clientId));
    return `/portal/orders?${q.toString()}`;
  };
  return html`<section class="card" id="dashboard-orders" aria-labelledby="dashboard-orders-title">
    <h2 id="dashboard-orders-title">${t('ordersTitle')}</h2>
    <p class="muted">${t('ordersNote')} <a href="${list(null)}">${t('allOrders')}</a></p>
    ${undeliveredMailsNotice(
      o.undeliveredReceiptMails,
      (kind) =>
        `/portal/orders?${new URLSearchParams({ from: d.from, to: d.to, receiptMail: kind }).toString()}`,
      'order-receipt-mails-undelivered',
      t('orderReceiptMailsUndelivered', {
        n: count(o.undeliveredReceiptMails.refused + o.undeliveredReceiptMails.givenUp, lang),
      }),
      lang,
      t,
    )}
    <div class="kpis">
      ${kpi(t('ordersNet'), m(now.netMinor), t('ordersNetHelp'), change(now.netMinor, before.netMinor, lang, t))}
      ${kpi(t('orders'), count(now.orders, lang), t('ordersHelp'), change(now.orders, before.orders, lang, t))}
      ${kpi(t('ordered'), m(now.orderedMinor), t('orderedHelp'), change(now.orderedMinor, before.orderedMinor, lang, t))}
      ${kpi(t('charged'), m(now.chargedMinor), t('chargedHelp'))}
      ${kpi(t('refunded'), m(now.refundedMinor), t('refundedHelp', { n: count(now.refunds, lang) }))}
    </div>
    ${shopTable(o, d.currency, lang, t, list)}
  </section>`;
}

function shopTable(
  o: Orders,
  currency: string,
  lang: PortalLang,
  t: DashboardTranslate,
  list: (clientId: number) => string,
): Html {
  const m = (minor: number) => money(minor, currency, lang);
  return html`<div class="table-wrap">
    <table id="dashboard-shops" class="stack-on-phone">
      <thead>
        <tr>
          <th>${t('shop')}</th>
          <th class="num">${t('orders')}</th>
          <th class="num">${t('ordered')}</th>
          <th class="num">${t('charged')}</th>
          <th class="num">${t('refunded')}</th>
          <th class="num">${t('ordersNetShort')}</th>
        </tr>
      </thead>
      <tbody>
        ${o.byShop.map(
          (s) =>
            html`<tr>
              <td class="phone-wide">
                <a href="${list(s.clientId)}">${s.shop}</a>
                ${s.revoked ? html`<span class="muted">(${t('shopRevoked')})</span>` : ''}
              </td>
              <td class="num" data-label="${t('orders')}">${count(s.orders, lang)}</td>
              <td class="num" data-label="${t('ordered')}">${m(s.orderedMinor)}</td>
              <td class="num" data-label="${t('charged')}">${m(s.chargedMinor)}</td>
              <td class="num" data-label="${t('refunded')}">${m(s.refundedMinor)}</td>
              <td class="num" data-label="${t('ordersNetShort')}">${m(s.netMinor)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
