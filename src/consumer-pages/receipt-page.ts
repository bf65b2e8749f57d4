import type { ReceiptView } from '../receipts/receipt-view.js';
import {
  type Language,
  formatDate,
  formatLocalTime,
  formatMoney,
  formatNumber,
  itemsText,
  languageOf,
  quantityText,
  receiptWords,
} from '../receipts/receipt-text.js';
import { type Raw, html, page } from './html.js';

/**
 * Who issued the receipt, as the merchant set it: the legal name (unless it is the name above),
 * the address's lines, the VAT id. Nothing at all when none is set, so no empty label shows.
 */
function issuerBlock(view: ReceiptView, taxLabel: string): Raw | '' {
  const { legalName, address, taxNumber } = view.issuer;
  const lines = [
    ...(legalName && legalName !== view.merchantName
      ? [html`<span class="legal-name">${legalName}</span>`]
      : []),
    ...(address ?? '')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => html`<span>${l}</span>`),
    ...(taxNumber ? [html`<span>${taxLabel}: <span class="tax-number">${taxNumber}</span></span>`] : []),
  ];
  if (lines.length === 0) return '';
  return html`<address class="issuer">${lines.map((l, i) => (i === 0 ? l : html`<br />${l}`))}</address>`;
}

/**
 * The digital receipt as a printable page, `/receipts/{id}` (docs/decisions.md, "Notifications,
 * receipts and the consumer portal").
 */
export function renderReceipt(
  view: ReceiptView,
  pdfHref: string | null,
  languageOverride?: Language,
): string {
  const lang = languageOverride ?? languageOf(view.language);
  const w = receiptWords(lang);
  const money = (minor: number) => formatMoney(minor, view.currency, lang);
  /** A VAT rate as sent ("7.7"), in the reader's language with its sign held to it: "7,7 %". */
  const percent = (rate: string) => `${formatNumber(Number(rate), lang)}\u00a0%`;
  const positions = view.positions.map(
    (p) =>
      html`<tr>
        <td>
          ${p.description}${p.props.length > 0 ? html`<span class="props">${p.props.map((x) => `${x.name}: ${x.value}`).join(' · ')}</span>` : ''}
        </td>
        <td class="num">${quantityText(p, lang)}</td>
        <td class="num">
          ${money(p.grossMinor)}${p.discountMinor ? html`<br /><span class="discount">${w.discount} −${money(p.discountMinor)}</span>` : ''}
        </td>
      </tr>`,
  );
  const included = view.includedDiscounts.map(
    (d) =>
      html`<tr class="included">
        <td colspan="2">${w.includedDiscount(d.description)}</td>
        <td class="num muted">−${money(d.valueMinor)}</td>
      </tr>`,
  );
  const rewards = view.rewards.map(
    (r) =>
      html`<tr>
        <td colspan="2">${r.description}</td>
        <td class="num discount">−${money(r.valueMinor)}</td>
      </tr>`,
  );
  const unrated = view.vats.reduce((s, v) => s + v.grossMinor, 0) !== view.totalGrossMinor;
  const vatTable =
    view.vats.length === 0
      ? html`<p class="muted">${w.noVat}</p>`
      : html`<table aria-label="${w.vat}">
            <thead>
              <tr>
                <th>${w.vatRate}</th>
                <th class="num">${w.net}</th>
                <th class="num">${w.tax}</th>
                <th class="num">${w.gross}</th>
              </tr>
            </thead>
            <tbody>
              ${view.vats.map(
                (v) =>
                  html`<tr>
                    <td>${percent(v.rateText)}</td>
                    <td class="num">${money(v.netMinor)}</td>
                    <td class="num">${money(v.taxMinor)}</td>
                    <td class="num">${money(v.grossMinor)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
          ${unrated ? html`<p class="muted">${w.partialVat}</p>` : ''}`;
  const points =
    view.points.length === 0
      ? ''
      : html`<h2>${w.points}</h2>
          <table>
            <tbody>
              ${view.points.map(
                (p) =>
                  html`<tr>
                    <td>${p.schemeName}</td>
                    <td class="num">
                      +${p.earned} ${w.earned}${p.redeemed ? html`<br />−${p.redeemed} ${w.redeemed}` : ''}
                    </td>
                    <td class="num">
                      ${p.balanceAfter === null ? '' : `${w.newBalance}: ${p.balanceAfter}`}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`;
  const returns =
    view.returns.length === 0
      ? ''
      : html`<h2 id="returns">${w.refunds}</h2>
          <table>
            <tbody>
              ${view.returns.map(
                (r) =>
                  html`<tr>
                    <td class="date">${formatDate(r.time, lang, view.timeZone)}</td>
                    <td>
                      ${r.kind === 'refund' ? w.refund : w.returned}${r.items.length > 0 ? html`: ${itemsText(r.items, lang)}` : ''}${
                        r.toBalanceMinor > 0
                          ? html`<br /><span class="muted">${money(r.toBalanceMinor)} ${w.toBalance}</span>`
                          : ''
                      }${r.points.map((p) => html`<br /><span class="muted">${w.pointsChange(p.schemeName, p.change)}</span>`)}
                    </td>
                    <td class="num">−${money(r.amountMinor)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`;
  const refund = view.returns.find((r) => r.kind === 'refund');
  const payments = view.payments.map(
    (p) =>
      html`<tr class="payment">
        <td colspan="2">${w.paidBy[p.method]}</td>
        <td class="num">${money(p.amountMinor)}</td>
      </tr>`,
  );
  const body = html` <h1>${view.merchantName}</h1>
    ${issuerBlock(view, w.taxNumber)}
    <p class="meta">${w.billNumber}: <span class="bill-number">${view.billNumber}</span></p>
    ${view.outlet ? html`<p class="meta">${w.outlet}: ${[view.outlet.name, view.outlet.address].filter((x) => x).join(', ')}</p>` : ''}
    <p class="meta">
      ${w.time}:
      <time datetime="${view.time.toISOString()}"
        >${formatLocalTime(view.time, view.timeOffsetMinutes, lang)}</time
      >
    </p>
    ${
      refund
        ? html`<p class="notice" role="status">
            ${w.refundedNotice(formatDate(refund.time, lang, view.timeZone), money(refund.toBalanceMinor))}
          </p>`
        : ''
    }
    <h2>${w.receipt}</h2>
    <table>
      <thead>
        <tr>
          <th>${w.article}</th>
          <th class="num">${w.quantity}</th>
          <th class="num">${w.amount}</th>
        </tr>
      </thead>
      <tbody>
        ${positions}${included}${rewards}
        <tr class="total">
          <td colspan="2">${w.total}</td>
          <td class="num">${money(view.totalGrossMinor)}</td>
        </tr>
        ${payments}
      </tbody>
    </table>
    <h2>${w.vat}</h2>
    ${vatTable} ${points} ${returns}
    <div class="actions">
      ${pdfHref === null ? '' : html`<a class="button" href="${pdfHref}" download>${w.billPdf}</a>`}
    </div>`;
  return page(`${w.receipt} · ${view.merchantName}`, lang, body);
}
