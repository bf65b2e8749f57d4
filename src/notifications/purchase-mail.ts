import {
  formatLocalTime,
  formatMoney,
  languageOf,
  purchaseSummary,
  receiptWords,
} from '../receipts/receipt-text.js';
import type { ReceiptView } from '../receipts/receipt-view.js';
import type { OutgoingMail } from './mailer.js';

/** Who gets the purchase mail. */
export interface MailRecipient {
  readonly email: string;
  readonly fullName: string | null;
  readonly language: string | null;
}

/** Text made safe inside HTML (elements and attribute values). */
export function esc(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The purchase mail in the consumer's language: the store, the time, the bill number, the
 * positions, the rewards, the total and how it was paid, the points of this purchase and the new
 * points balance, returns and refunds, the receipt link, and the till's BillPdf attached.
 */
export function composePurchaseMail(
  view: ReceiptView,
  to: MailRecipient,
  receiptUrl: string,
  portalUrl: string,
  billPdf: Buffer | null,
): OutgoingMail {
  const lang = languageOf(to.language ?? view.language);
  const w = receiptWords(lang);
  const store = [view.merchantName, view.outlet?.name, view.outlet?.address].filter((x) => x).join(', ');
  const when = formatLocalTime(view.time, view.timeOffsetMinutes, lang);
  const summary = purchaseSummary(view, lang);
  const text = [
    w.mailHello(to.fullName),
    '',
    w.mailThanks(view.merchantName),
    `${w.outlet}: ${store}`,
    `${w.time}: ${when}`,
    `${w.billNumber}: ${view.billNumber}`,
    '',
    ...summary,
    '',
    `${w.mailReceipt}: ${receiptUrl}`,
    ...(billPdf ? [w.mailPdf] : []),
    '',
    `${w.mailSettings}: ${portalUrl}`,
  ].join('\n');
  // The total once in each part: the summary's line, set apart in the HTML part.
  const totalLine = `${w.total}: ${formatMoney(view.totalGrossMinor, view.currency, lang)}`;
  const at = summary.indexOf(totalLine);
  const list = (lines: string[]) =>
    lines.length ? `<ul>${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` : '';
  const html = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${esc(w.mailSubject(view.merchantName))}</title></head><body style="font-family:system-ui,sans-serif;color:#1a1a1a">
<p>${esc(w.mailHello(to.fullName))}</p>
<p>${esc(w.mailThanks(view.merchantName))}</p>
<p>${esc(w.outlet)}: ${esc(store)}<br>${esc(w.time)}: ${esc(when)}<br>${esc(w.billNumber)}: ${esc(view.billNumber)}</p>
${list(summary.slice(0, at))}
<p><strong>${esc(totalLine)}</strong></p>
${list(summary.slice(at + 1))}
<p><a href="${esc(receiptUrl)}">${esc(w.mailReceipt)}</a></p>
${billPdf ? `<p>${esc(w.mailPdf)}</p>` : ''}
<p style="color:#4a4a4a">${esc(w.mailSettings)}: <a href="${esc(portalUrl)}">${esc(portalUrl)}</a></p>
</body></html>`;
  return {
    to: to.email,
    fromName: view.merchantName,
    subject: w.mailSubject(view.merchantName),
    text,
    html,
    attachments: billPdf ? [{ filename: 'bill.pdf', content: billPdf, contentType: 'application/pdf' }] : [],
  };
}
