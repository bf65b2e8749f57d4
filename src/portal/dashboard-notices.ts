import type { PortalLang } from '../portal-users/portal-user.store.js';
import type { Dashboard } from './dashboard.routes.js';
import { type Html, html } from './html.js';
import { money } from './layout.js';
import { count } from './dashboard-format.js';
import type { DashboardTranslate } from './strings-dashboard.js';

/** The dashboard page's notices above its figures: what the owner should know of the period. */

/**
 * The warnings first: the tills' totals (TotalValue) that differ from their positions, the receipt
 * mails that did not arrive; then the totals not sent, which only explain the figures.
 */
export function notices(
  d: Dashboard,
  outletId: number | null,
  lang: PortalLang,
  t: DashboardTranslate,
): Html {
  const now = d.totals;
  const m = (minor: number) => money(minor, d.currency, lang);
  const missing = now.baskets - now.withTotalValue;
  return html`${
    now.totalValueDiffers > 0
      ? html`<p class="notice warning" role="status" id="total-value-differs">
          ${t('totalValueDiffers', {
            n: count(now.totalValueDiffers, lang),
            m: count(now.withTotalValue, lang),
            till: m(now.totalValueDiffersTillMinor),
            sales: m(now.totalValueDiffersSalesMinor),
          })}
        </p>`
      : ''
  }
  ${undeliveredNotice(d, outletId, lang, t)}
  ${missing > 0 ? html`<p class="notice muted" id="total-value-missing">${t('totalValueMissing', { n: count(missing, lang) })}</p>` : ''}`;
}

/**
 * The period's receipt mails that did not arrive, each kind a link to the basket search that finds
 * them (the same days and outlet): where the owner sees the customer and mends the address.
 */
function undeliveredNotice(
  d: Dashboard,
  outletId: number | null,
  lang: PortalLang,
  t: DashboardTranslate,
): Html {
  const { refused, givenUp } = d.undeliveredReceiptMails;
  if (refused + givenUp === 0) return html``;
  const link = (kind: string, text: string) => {
    const q = new URLSearchParams({ from: d.from, to: d.to, receiptMail: kind });
    if (outletId !== null) q.set('outletId', String(outletId));
    return html`<a href="/portal/baskets?${q.toString()}">${text}</a>`;
  };
  const parts = [
    refused > 0 ? link('refused', t('receiptMailsRefused', { n: count(refused, lang) })) : null,
    givenUp > 0 ? link('given_up', t('receiptMailsGivenUp', { n: count(givenUp, lang) })) : null,
  ].filter((x) => x !== null);
  return html`<p class="notice warning" role="status" id="receipt-mails-undelivered">
    ${t('receiptMailsUndelivered', { n: count(refused + givenUp, lang) })}
    ${parts.map((x, i) => html`${i > 0 ? ', ' : ''}${x}`)}. ${t('receiptMailsMend')}
  </p>`;
}
