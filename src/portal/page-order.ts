import { randomUUID } from 'node:crypto';
import { currencyExponent } from '../shared/money.js';
import type { OrderDetail } from './order-detail-views.js';
import { type Html, html } from './html.js';
import { type PageUser, badge, dateTime, money, numberFormat } from './layout.js';
import { orderTranslator } from './strings-orders.js';
import { translator } from './strings.js';
import { basketTranslator } from './strings-baskets.js';
import { receiptMailText, resendReceiptForm } from './page-receipt-mail.js';

/** A VAT rate as the user reads it: 19 %, 7 %, 5,5 %. */
function rate(text: string, user: PageUser): string {
  const n = Number(text);
  return Number.isFinite(n) ? `${numberFormat(user.lang, { maximumFractionDigits: 4 }).format(n)} %` : text;
}

/** A quantity as the user reads it, up to three decimals (weighed goods). */
function quantityText(n: number, user: PageUser): string {
  return numberFormat(user.lang, { maximumFractionDigits: 3 }).format(n);
}

/** A position's article: its name when the order was priced, else its PLU. */
function articleOf(p: OrderDetail['positions'][number] | undefined): string | undefined {
  return p ? (p.name ?? p.plu) : undefined;
}

export function orderStateBadge(state: OrderDetail['state'], user: PageUser): Html {
  const o = orderTranslator(user.lang);
  if (state === 'refunded') return badge('no', o('stateRefunded'));
  if (state === 'partially_refunded') return badge('scheduled', o('statePartly'));
  return badge('yes', o('stateCompleted'));
}

/**
 * Sending the order's receipt again (docs/decisions.md, "Sending a checkout order's receipt
 * again"): offered on an order paid from the balance, whose purchase mail this service sends, when
 * its last is not on its way.
 */
function resendForm(d: OrderDetail, user: PageUser): Html | string {
  if (!d.receiptUrl || d.balance === null || d.receiptMail?.kind === 'pending') return '';
  return resendReceiptForm(`/portal/api/v1/orders/${encodeURIComponent(d.orderId)}/receiptMail`, user);
}

/**
 * One checkout order (docs/decisions.md, "One checkout order in the portal"): what it came to,
 * charged and gave back, who placed it where, its positions as priced with their discounts and
 * what refunds took back, the VAT, each refund, and the receipt.
 */
export function orderDetailBody(d: OrderDetail, user: PageUser): Html {
  const t = translator(user.lang);
  const o = orderTranslator(user.lang);
  const m = (minor: number) => money(minor, d.currency, user.lang);
  const when = (iso: string) => dateTime(iso, user.lang, user.merchant.timeZone);
  const byId = new Map(d.positions.map((p) => [p.positionId, p]));
  const qty = (n: number) => quantityText(n, user);
  return html`<p><a href="/portal/orders">← ${o('allOrders')}</a></p>
    <div class="kpis">
      <div class="kpi">
        <div class="label">${t('total')}</div>
        <div class="value" id="order-total">${m(d.totalGrossMinor)}</div>
      </div>
      <div class="kpi">
        <div class="label">${o('charged')}</div>
        <div class="value" id="order-charged">${m(d.chargedMinor)}</div>
      </div>
      <div class="kpi">
        <div class="label">${o('refunded')}</div>
        <div class="value" id="order-refunded">${m(d.refundedMinor)}</div>
        <div class="help">${o('refundable', { amount: m(d.refundableMinor) })}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('state')}</div>
        <div class="value">${orderStateBadge(d.state, user)}</div>
      </div>
    </div>
    <div class="card">
      <dl id="order-facts">
        <dt>${o('basketId')}</dt>
        <dd class="url"><code>${d.basketId}</code></dd>
        <dt>${o('orderId')}</dt>
        <dd class="url"><code>${d.orderId}</code></dd>
        <dt>${o('shop')}</dt>
        <dd>${d.shop ?? `#${d.clientId}`}</dd>
        <dt>${o('customer')}</dt>
        <dd>
          <a href="/portal/profiles/${d.profileId}">${d.customerName ?? `#${d.profileId}`}</a> ·
          <a href="/portal/orders?profileId=${d.profileId}">${o('customerOrders')}</a>
        </dd>
        <dt>${o('placedAt')}</dt>
        <dd>${when(d.createdAt)}</dd>
        <dt>${o('shopTime')}</dt>
        <dd>${when(d.orderTimestamp)}</dd>
        <dt>${o('consumption')}</dt>
        <dd>${d.consumptionMode === 'Takeaway' ? o('takeaway') : o('onPremise')}</dd>
        <dt>${o('balance')}</dt>
        <dd id="order-balance">
          ${d.balance ? `${m(d.balance.beforeMinor)} → ${m(d.balance.afterMinor)}` : o('notCharged')}
        </dd>
        <dt>${t('receipt')}</dt>
        <dd>${d.receiptUrl ? html`<a href="${d.receiptUrl}">${o('openReceipt')}</a>` : t('noReceipt')}</dd>
        ${
          d.receiptUrl
            ? html`<dt>${basketTranslator(user.lang)('receiptMail')}</dt>
                <dd id="order-receipt-mail">${receiptMailText(d, user)}</dd>`
            : ''
        }
      </dl>
      ${resendForm(d, user)}
    </div>
    <h2>${o('positions')}</h2>
    <div class="table-wrap">
      <table id="order-positions" class="stack-on-phone">
        <thead>
          <tr>
            <th>${t('position')}</th>
            <th>${o('article')}</th>
            <th class="num">${o('quantity')}</th>
            <th class="num">${o('lineGross')}</th>
            <th class="num">${o('discount')}</th>
            <th class="num">${o('amount')}</th>
            <th class="num">${o('vat')}</th>
            <th class="num">${o('refunded')}</th>
          </tr>
        </thead>
        <tbody>
          ${d.positions.map(
            (p) =>
              html`<tr>
                <td data-label="${t('position')}">${p.positionId}</td>
                <td class="phone-wide" data-label="${o('article')}">
                  ${p.name ?? ''} <small class="muted">${p.plu}</small>
                </td>
                <td class="num" data-label="${o('quantity')}">${qty(p.quantity)}</td>
                <td class="num" data-label="${o('lineGross')}">${m(p.lineGrossMinor)}</td>
                ${
                  p.discountMinor > 0
                    ? html`<td class="num" data-label="${o('discount')}">−${m(p.discountMinor)}</td>`
                    : html`<td class="num blank"></td>`
                }
                <td class="num phone-first" data-label="${o('amount')}">${m(p.amountMinor)}</td>
                <td class="num" data-label="${o('vat')}">${rate(p.vatRate, user)}</td>
                ${
                  p.refundedQuantity > 0 || p.refundedMinor > 0
                    ? html`<td class="num" data-label="${o('refunded')}">
                        ${m(p.refundedMinor)}${p.refundedQuantity > 0 ? html` <small class="muted">(${qty(p.refundedQuantity)} ×)</small>` : ''}
                      </td>`
                    : html`<td class="num blank"></td>`
                }
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${
      d.campaigns.length === 0
        ? ''
        : html`<p id="order-campaigns">
            ${o('campaignsGiven')}:
            ${d.campaigns.map(
              (c, i) =>
                html`${i > 0 ? ' · ' : ''}<a href="/portal/campaigns/${c.campaignId}"
                    >${c.name ?? `#${c.campaignId}`}</a
                  >${
                    c.pricedName !== null && c.pricedName !== c.name
                      ? html` <span class="muted">(${o('onReceiptAs', { name: c.pricedName })})</span>`
                      : ''
                  }
                  −${m(c.discountMinor)}`,
            )}
          </p>`
    }
    <h2>${o('vatTitle')}</h2>
    <div class="table-wrap">
      <table id="order-vats">
        <thead>
          <tr>
            <th>${o('vat')}</th>
            <th class="num">${o('net')}</th>
            <th class="num">${o('tax')}</th>
            <th class="num">${o('gross')}</th>
          </tr>
        </thead>
        <tbody>
          ${d.vats.map(
            (v) =>
              html`<tr>
                <td>${rate(v.vatRate, user)}</td>
                <td class="num">${m(v.netMinor)}</td>
                <td class="num">${m(v.taxMinor)}</td>
                <td class="num">${m(v.grossMinor)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <h2>${o('refundsTitle')}</h2>
    ${
      d.refunds.length === 0
        ? html`<p class="muted empty">${o('noRefunds')}</p>`
        : html`<ul id="order-refunds">
            ${d.refunds.map(
              (r) =>
                html`<li>
                  ${when(r.createdAt)} · <strong>${m(r.amountMinor)}</strong> ·
                  ${
                    r.positions.length === 0
                      ? o('refundOfAmount')
                      : r.positions
                          .map(
                            (p) =>
                              `${qty(p.quantity)} × ${articleOf(byId.get(p.positionId)) ?? `#${p.positionId}`}`,
                          )
                          .join(', ')
                  } <br /><small class="muted"
                    >${r.requestId === null ? o('refundByShop') : o('refundBy', { who: r.by ?? '—' })}${r.reason ? `: „${r.reason}“` : ''}</small
                  >
                </li>`,
            )}
          </ul>`
    }
    ${refundForm(d, user)}`;
}

/**
 * An owner's refund (docs/decisions.md, "Refunding an order from the portal"): its request id is
 * made with the page, so that the form sent twice gives the money back once.
 */
function refundForm(d: OrderDetail, user: PageUser): Html | string {
  if (user.role !== 'owner' || d.refundableMinor === 0) return '';
  const o = orderTranslator(user.lang);
  const m = (minor: number) => money(minor, d.currency, user.lang);
  return html`<form
    class="card"
    id="order-refund"
    data-api="POST /portal/api/v1/orders/${encodeURIComponent(d.orderId)}/refunds"
    data-next="reload"
    data-quote="POST /portal/api/v1/orders/${encodeURIComponent(d.orderId)}/refunds/quote"
    data-quote-fields="amount positions"
    data-confirm-amount="${o('refundConfirmAmount')}"
    data-currency="${d.currency}"
    data-exponent="${currencyExponent(d.currency)}"
    data-locale="${user.lang === 'de' ? 'de-DE' : 'en-GB'}"
    data-error-refund-exceeds-refundable="${o('refundTooMuch')}"
    data-error-refund-request-reused="${o('refundReused')}"
    data-error-refund-amount-and-positions="${o('refundAmountAndPositions')}"
    data-error-refund-quantity-exceeds="${o('refundQuantityExceeds')}"
  >
    <h2>${o('refundTitle')}</h2>
    <p class="muted">${o('refundHelp', { amount: m(d.refundableMinor) })}</p>
    <input type="hidden" name="requestId" value="${randomUUID()}" />
    <label
      >${o('refundAmount')}
      <input name="amount" pattern="[0-9]+([.,][0-9]{1,4})?" inputmode="decimal" data-type="decimal"
    /></label>
    ${positionsToTakeBack(d, user)}
    <label>${o('refundReason')} <input name="reason" maxlength="500" /></label>
    <p class="form-error" role="alert" hidden></p>
    <button type="submit">${o('refundTitle')}</button>
  </form>`;
}

/**
 * The positions a refund may still take back, each with a quantity to fill in (docs/decisions.md,
 * "Refunding an order from the portal"): what is left of it and what it came to less what refunds
 * gave back for it; sent as the request's `positions`, those left empty not.
 */
function positionsToTakeBack(d: OrderDetail, user: PageUser): Html | string {
  const o = orderTranslator(user.lang);
  const m = (minor: number) => money(minor, d.currency, user.lang);
  const qty = (milli: number) => quantityText(milli / 1000, user);
  const open = d.positions
    .map((p) => ({
      p,
      leftMilli: Math.round(p.quantity * 1000) - Math.round(p.refundedQuantity * 1000),
      leftMinor: p.amountMinor - p.refundedMinor,
    }))
    .filter((x) => x.leftMilli > 0);
  if (open.length === 0) return '';
  return html`<fieldset class="set take-back" id="order-refund-positions">
    <legend>${o('refundPositions')}</legend>
    <p class="help">${o('refundPositionsHelp')}</p>
    ${open.map(
      ({ p, leftMilli, leftMinor }) =>
        html`<label
          >${articleOf(p)}
          <small class="muted"
            >#${p.positionId} ·
            ${o('refundPositionLeft', { left: qty(leftMilli), of: qty(Math.round(p.quantity * 1000)), amount: m(leftMinor) })}</small
          >
          <input
            name="quantity"
            data-list="positions"
            data-item="${JSON.stringify({ positionId: p.positionId })}"
            data-type="quantity"
            inputmode="decimal"
            pattern="[0-9]+([.,][0-9]{1,3})?"
            size="6"
        /></label>`,
    )}
  </fieldset>`;
}
