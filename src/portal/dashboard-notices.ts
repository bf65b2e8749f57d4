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
 * The period's receipt mails of the tills' baskets that did not arrive, each kind a link to the
 * basket search that finds them (the same days and outlet): where the owner sees the customer and
 * mends the address.
 */
function undeliveredNotice(
  d: Dashboard,
  outletId: number | null,
  lang: PortalLang,
  t: DashboardTranslate,
): Html {
  const found = (kind: string) => {
    const q = new URLSearchParams({ from: d.from, to: d.to, receiptMail: kind });
    if (outletId !== null) q.set('outletId', String(outletId));
    return `/portal/baskets?${q.toString()}`;
  };
  const lead = t('receiptMailsUndelivered', { n: count(total(d.undeliveredReceiptMails), lang) });
  return undeliveredMailsNotice(d.undeliveredReceiptMails, found, 'receipt-mails-undelivered', lead, lang, t);
}

const total = (m: Dashboard['undeliveredReceiptMails']) => m.refused + m.givenUp;

/**
 * A warning of receipt mails that did not arrive (`lead`, then each kind a link to the search
 * `found` makes for it, and where to mend it); nothing when all arrived.
 */
export function undeliveredMailsNotice(
  mails: Dashboard['undeliveredReceiptMails'],
  found: (kind: 'refused' | 'given_up') => string,
  id: string,
  lead: string,
  lang: PortalLang,
  t: DashboardTranslate,
): Html {
  const { refused, givenUp } = mails;
  if (total(mails) === 0) return html``;
  const parts = [
    refused > 0
      ? html`<a href="${found('refused')}">${t('receiptMailsRefused', { n: count(refused, lang) })}</a>`
      : null,
    givenUp > 0
      ? html`<a href="${found('given_up')}">${t('receiptMailsGivenUp', { n: count(givenUp, lang) })}</a>`
      : null,
  ].filter((x) => x !== null);
  return html`<p class="notice warning" role="status" id="${id}">
    ${lead} ${parts.map((x, i) => html`${i > 0 ? ', ' : ''}${x}`)}. ${t('receiptMailsMend')}
  </p>`;
}
