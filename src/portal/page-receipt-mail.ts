import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import { type PageUser, dateTime } from './layout.js';
import type { ReceiptMailFilterSchema } from './mail-schemas.js';
import type { BasketDetailSchema } from './schemas.js';
import { basketTranslator } from './strings-baskets.js';

/**
 * The receipt's mail on the portal's pages, a basket's or an order's: what became of it, the
 * button that sends it again, and the searches' filter by it.
 */

type BasketDetail = Static<typeof BasketDetailSchema>;

const when = (user: PageUser, iso: string | null) => dateTime(iso, user.lang, user.merchant.timeZone);

/**
 * What became of the receipt's mail (docs/decisions.md, "What became of the receipt mail"), as a
 * merchant asked "where is my receipt?" needs it: sent, why not, or when it is tried again.
 */
export function receiptMailText(d: Pick<BasketDetail, 'receiptMail'>, user: PageUser): string {
  const b = basketTranslator(user.lang);
  const r = d.receiptMail;
  if (r === null) return b('mailNone');
  const fill = (text: string) =>
    text
      .replace('{n}', String(r.attempts))
      .replace('{at}', when(user, r.kind === 'pending' ? r.nextAttemptAt : r.deliveredAt))
      // The outbox's error names the mail; the line already says it is the mail.
      .replace('{reason}', (r.lastError ?? '—').replace(/^mail(?: refused)?: /, ''));
  switch (r.kind) {
    case 'refused':
      return fill(b('mailRefused'));
    case 'given_up':
      return fill(b('mailGivenUp'));
    case 'pending':
      // No try failed yet: the first is still to come, or being made.
      return r.lastError === null ? b('mailWaiting') : fill(b('mailRetrying'));
    case 'not_sent':
      return b(r.mail === 'switched_off' ? 'mailSwitchedOff' : 'mailNoAddress');
    case 'sent':
      return fill(b('mailSent'));
  }
}

/** The button that sends a receipt again through `path` (a basket's or an order's), with its refusals' words. */
export function resendReceiptForm(path: string, user: PageUser): Html {
  const b = basketTranslator(user.lang);
  return html`<form
    class="inline resend"
    data-api="POST ${path}"
    data-no-body
    data-next="reload"
    data-error-receipt-mail-pending="${b('resendPending')}"
    data-error-receipt-mail-nobody="${b('resendNobody')}"
    data-error-receipt-missing="${b('resendMissing')}"
    data-error-receipt-mail-paid-otherwise="${b('resendPaidOtherwise')}"
  >
    <button type="submit" id="resend-receipt">${b('resend')}</button>
    <span class="muted">${b('resendHelp')}</span>
    <p class="form-error" role="alert" hidden></p>
  </form>`;
}

/** The basket search's receipt-mail filter: its choices, each as the basket's page words it. */
const MAIL_KINDS = [
  ['sent', 'kindSent'],
  ['pending', 'kindPending'],
  ['refused', 'kindRefused'],
  ['given_up', 'kindGivenUp'],
] as const satisfies readonly (readonly [Static<typeof ReceiptMailFilterSchema>, string])[];

/** The searches' receipt-mail filter (baskets and orders), its choice kept. */
export function receiptMailSelect(query: Record<string, string>, user: PageUser): Html {
  const b = basketTranslator(user.lang);
  const chosen = (k: string) => (query.receiptMail === k ? html`selected` : '');
  return html`<label
    >${b('receiptMail')}
    <select name="receiptMail">
      <option value="">${b('anyMail')}</option>
      ${MAIL_KINDS.map(([k, text]) => html`<option value="${k}" ${chosen(k)}>${b(text)}</option>`)}
    </select></label
  >`;
}
