import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import { type PageUser, badge, dateTime, money, numberFormat } from './layout.js';
import { receiptMailSelect, receiptMailText, resendReceiptForm } from './page-receipt-mail.js';
import type { BasketDetailSchema, BasketListingSchema, TerminalSchema } from './schemas.js';
import { basketTranslator } from './strings-baskets.js';
import { codeWord } from './code-words.js';
import { itemsText } from '../receipts/receipt-text.js';
import { translator } from './strings.js';
import { csvLink, numberAndDays, searchPager } from './page-search.js';

/** The filters the basket search keeps from one page to the next. */
const BASKET_FILTERS = ['number', 'from', 'to', 'outletId', 'trackingUnitId', 'card', 'state', 'receiptMail'];

type Terminal = Static<typeof TerminalSchema>;
type Basket = Static<typeof BasketListingSchema>;
type BasketDetail = Static<typeof BasketDetailSchema>;

const when = (user: PageUser, iso: string | null) => dateTime(iso, user.lang, user.merchant.timeZone);
export const basketHref = (b: { trackingUnitId: string; basketId: string }) =>
  `/portal/baskets/${encodeURIComponent(b.trackingUnitId)}/${encodeURIComponent(b.basketId)}`;
const cardHref = (card: string) => `/portal/cards?tokenId=${encodeURIComponent(card)}`;

function stateBadge(state: Basket['state'], user: PageUser): Html {
  const b = basketTranslator(user.lang);
  if (state === 'open') return badge('no', b('stateOpen'));
  if (state === 'returned') return badge('scheduled', b('stateReturned'));
  return badge('yes', b('stateGranted'));
}

/**
 * Sending the receipt again (docs/decisions.md, "Sending the receipt again"): offered on a granted
 * customer card's basket whose last mail is not on its way.
 */
function resendForm(d: BasketDetail, user: PageUser): Html | string {
  if (!d.receiptUrl || d.cardType !== 'customer' || d.receiptMail?.kind === 'pending') return '';
  return resendReceiptForm(`/portal/api/v1${basketHref(d).slice('/portal'.length)}/receiptMail`, user);
}

/**
 * A basket not granted yet: the campaigns whose rewards its upload offered the till, so that an
 * open basket does not look as if none applied (its rewards are booked by the grant).
 */
function offeredLine(d: BasketDetail, user: PageUser): Html | string {
  if (d.offered.length === 0) return '';
  const b = basketTranslator(user.lang);
  const [open, close] = user.lang === 'de' ? ['„', '“'] : ['“', '”'];
  const names = d.offered.map((o) => `${open}${o.name}${close}`).join(', ');
  return html`<dt>${b('offered')}</dt>
    <dd id="basket-offered">${names} <span class="muted">(${b('offeredHelp')})</span></dd>`;
}

/** The amount as the till sent it, in the user's number format (kg with up to 3 decimals). */
function quantity(amount: number, unit: number, user: PageUser): string {
  const text = numberFormat(user.lang, { maximumFractionDigits: 3 }).format(amount);
  return unit === 1 ? `${text} kg` : text;
}

/**
 * A basket's total: its positions summed, as the dashboard counts sales; where the till's
 * TotalValue differs, that is marked beside it.
 */
export function basketTotal(
  x: { positionsTotalMinor: number; totalValueMinor: number | null; currency: string },
  user: PageUser,
): Html {
  const b = basketTranslator(user.lang);
  const total = money(x.positionsTotalMinor, x.currency, user.lang);
  if (x.totalValueMinor === null || x.totalValueMinor === x.positionsTotalMinor) return html`${total}`;
  return html`${total}<br /><small class="total-differs" title="${b('tillTotalDiffers')}"
      >≠ ${b('tillSent')} ${money(x.totalValueMinor, x.currency, user.lang)}</small
    >`;
}

/** Why the list is empty: no bill under that number, no basket these filters take, or none in the days. */
function emptyText(query: Record<string, string>, user: PageUser): string {
  const b = basketTranslator(user.lang);
  if (query.number) return b('noBasketFound');
  const filtered = ['outletId', 'trackingUnitId', 'card', 'state', 'receiptMail'].some((k) => query[k]);
  return filtered ? b('noBasketMatches') : translator(user.lang)('emptyBaskets');
}

export interface BasketPage {
  data: Basket[];
  hasMore: boolean;
  nextCursor: string | null;
}

export function basketSearchBody(
  page: BasketPage,
  user: PageUser,
  query: Record<string, string>,
  outlets: { id: number; name: string }[],
  terminals: Terminal[],
  filters: Record<string, unknown> = {},
): Html {
  const t = translator(user.lang);
  const b = basketTranslator(user.lang);
  const selected = (on: boolean) => (on ? html`selected` : '');
  return html` <form class="inline card" method="get" action="/portal/baskets" role="search">
      ${numberAndDays(b('number'), query, t)}
      <label
        >${t('outlet')}
        <select name="outletId">
          <option value="">${t('allOutlets')}</option>
          ${outlets.map((o) => html`<option value="${o.id}" ${selected(String(o.id) === query.outletId)}>${o.name}</option>`)}
        </select></label
      >
      <label
        >${t('terminal')}
        <select name="trackingUnitId">
          <option value="">${b('allTerminals')}</option>
          ${terminals.map((u) => html`<option value="${u.trackingUnitId}" ${selected(u.trackingUnitId === query.trackingUnitId)}>${u.instanceName}</option>`)}
        </select></label
      >
      <label>${t('card')} <input name="card" value="${query.card ?? ''}" autocomplete="off" /></label>
      <label
        >${t('state')}
        <select name="state">
          <option value="">${b('anyState')}</option>
          <option value="open" ${selected(query.state === 'open')}>${b('stateOpen')}</option>
          <option value="granted" ${selected(query.state === 'granted')}>${b('stateGranted')}</option>
          <option value="returned" ${selected(query.state === 'returned')}>${b('stateReturned')}</option>
        </select></label
      >
      ${receiptMailSelect(query, user)}
      <button type="submit">${t('search')}</button>
    </form>
    ${
      page.data.length === 0
        ? html`<p class="muted empty">${emptyText(query, user)}</p>`
        : html`<div class="table-wrap">
            <table id="basket-list" class="stack-on-phone">
              <thead>
                <tr>
                  <th>${t('time')}</th>
                  <th>${b('billNumber')}</th>
                  <th>${b('basketId')}</th>
                  <th>${t('terminal')}</th>
                  <th>${t('card')}</th>
                  <th class="num">${t('total')}</th>
                  <th class="num">${t('rewards')}</th>
                  <th>${t('state')}</th>
                </tr>
              </thead>
              <tbody>
                ${page.data.map(
                  (x) =>
                    html`<tr>
                      <td data-label="${t('time')}">${when(user, x.timestamp)}</td>
                      <td data-label="${b('billNumber')}">
                        ${x.billNumber ? html`<a href="${basketHref(x)}">${x.billNumber}</a>` : '—'}
                      </td>
                      <td class="url" data-label="${b('basketId')}">
                        <a href="${basketHref(x)}">${x.basketId}</a>
                      </td>
                      <td data-label="${t('terminal')}">
                        ${x.instanceName ?? x.trackingUnitId}<br /><small class="muted"
                          >${x.outletName ?? `#${x.outletId}`}</small
                        >
                      </td>
                      ${
                        x.card
                          ? html`<td class="url" data-label="${t('card')}">
                              <a href="${cardHref(x.card)}">${x.card}</a>
                            </td>`
                          : html`<td class="blank"></td>`
                      }
                      <td class="num" data-label="${t('total')}">${basketTotal(x, user)}</td>
                      <td class="num" data-label="${t('rewards')}">
                        ${money(x.rewardMinor, x.currency, user.lang)}
                      </td>
                      <td class="phone-first" data-label="${t('state')}">${stateBadge(x.state, user)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${searchPager('/portal/baskets', t('baskets'), query, BASKET_FILTERS, page, {
      first: b('firstPage'),
      next: b('nextPage'),
    })}
    ${csvLink('/portal/api/v1/baskets.csv', filters, b('downloadCsv'), page.data.length > 0)}`;
}

export function basketDetailBody(d: BasketDetail, user: PageUser): Html {
  const t = translator(user.lang);
  const b = basketTranslator(user.lang);
  const m = (minor: number) => money(minor, d.currency, user.lang);
  return html` <p><a href="/portal/baskets">← ${t('back')}</a></p>
    <div class="kpis">
      <div class="kpi">
        <div class="label">${b('billNumber')}</div>
        <div class="value" id="bill-number">${d.billNumber ?? '—'}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('time')}</div>
        <div class="value">${when(user, d.timestamp)}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('total')}</div>
        <div class="value" id="basket-total">${basketTotal(d, user)}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('rewards')}</div>
        <div class="value">${m(d.rewardMinor)}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('state')}</div>
        <div class="value">${stateBadge(d.state, user)}</div>
      </div>
    </div>
    <div class="card">
      <dl>
        <dt>${b('basketId')}</dt>
        <dd><code>${d.basketId}</code></dd>
        <dt>${t('terminal')}</dt>
        <dd id="basket-terminal">${d.instanceName ?? d.trackingUnitId}</dd>
        <dt>${b('outletLabel')}</dt>
        <dd>${d.outletName ?? `#${d.outletId}`}</dd>
        <dt>${t('card')}</dt>
        <dd>
          ${
            d.card
              ? html`<a href="${cardHref(d.card)}">${d.card}</a>
                  (${d.cardType === 'gift' ? b('giftCard') : codeWord(user.lang, 'customer')})`
              : '—'
          }
        </dd>
        <dt>${b('uploaded')}</dt>
        <dd>${when(user, d.uploadedAt)}</dd>
        ${offeredLine(d, user)}
        <dt>${t('receipt')}</dt>
        <dd>${d.receiptUrl ? html`<a href="${d.receiptUrl}">${b('openReceipt')}</a>` : t('noReceipt')}</dd>
        ${
          d.receiptUrl
            ? html`<dt>${b('receiptMail')}</dt>
                <dd id="receipt-mail">${receiptMailText(d, user)}</dd>`
            : ''
        }
      </dl>
      ${resendForm(d, user)}
    </div>
    <h2>${b('lineItems')}</h2>
    ${
      d.positions.length === 0
        ? html`<p class="muted empty">${b('noLineItems')}</p>`
        : html`<div class="table-wrap">
            <table id="basket-positions" class="stack-on-phone">
              <thead>
                <tr>
                  <th>${t('position')}</th>
                  <th>${b('article')}</th>
                  <th class="num">${b('quantity')}</th>
                  <th class="num">${b('unitPrice')}</th>
                  <th class="num">${b('lineTotal')}</th>
                  <th>${b('lineRewards')}</th>
                </tr>
              </thead>
              <tbody>
                ${d.positions.map(
                  (p) =>
                    html`<tr>
                      <td data-label="${t('position')}">${p.positionId}</td>
                      <td class="phone-wide" data-label="${b('article')}">
                        ${p.name ?? ''}${p.plu ? html` <small class="muted">${p.plu}</small>` : ''}
                      </td>
                      <td class="num" data-label="${b('quantity')}">${quantity(p.amount, p.unit, user)}</td>
                      ${
                        p.unitPriceMinor === null
                          ? html`<td class="num blank"></td>`
                          : html`<td class="num" data-label="${b('unitPrice')}">${m(p.unitPriceMinor)}</td>`
                      }
                      ${
                        p.lineMinor === null
                          ? html`<td class="num blank"></td>`
                          : html`<td class="num phone-first" data-label="${b('lineTotal')}">
                              ${m(p.lineMinor)}
                            </td>`
                      }
                      ${
                        p.rewards.length === 0
                          ? html`<td class="blank"></td>`
                          : html`<td class="phone-wide" data-label="${b('lineRewards')}">
                              ${p.rewards.map((r) => html`${r.name}: −${m(r.valueMinor)}<br />`)}
                            </td>`
                      }
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <h2>${t('loyalty')}</h2>
    ${
      d.loyalty.length === 0
        ? html`<p class="muted empty">${t('emptyBasketPoints')}</p>`
        : html`<div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>${t('name')}</th>
                  <th class="num">${t('from')}</th>
                  <th class="num">${t('to')}</th>
                </tr>
              </thead>
              <tbody>
                ${d.loyalty.map(
                  (l) =>
                    html`<tr>
                      <td>${l.name}</td>
                      <td class="num">${l.previousPoints}</td>
                      <td class="num">${l.newPoints}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <h2>${t('returns')}</h2>
    ${
      d.returns.length === 0
        ? html`<p class="muted empty">${t('emptyBasketReturns')}</p>`
        : html`<ul>
            ${d.returns.map((r) => {
              // What went back (1 × Cappuccino, 0,1 kg Bergkäse), written as the receipt writes it,
              // and what the till refunded.
              const items = r.positions.map((p) => {
                const sold = d.positions.find((x) => x.positionId === p.positionId);
                const name = sold?.name ?? sold?.plu ?? `#${p.positionId}`;
                return { quantity: p.amount, weighed: sold?.unit === 1, name };
              });
              const value = r.valueMinor === null ? '' : ` · −${m(r.valueMinor)}`;
              return html`<li>
                ${r.returnId} · ${when(user, r.createdAt)} · ${itemsText(items, user.lang)}${value}
              </li>`;
            })}
          </ul>`
    }`;
}
