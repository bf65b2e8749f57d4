import type { Static } from 'typebox';
import type { ReceiptDetailsSchema } from '../wire/documents/receipt-details.schemas.js';
import { type Html, html } from './html.js';
import type { PageUser } from './layout.js';
import { translator } from './strings.js';
import { settingsTranslator } from './strings-settings.js';

type ReceiptDetails = Static<typeof ReceiptDetailsSchema>;

/**
 * The settings page: what the receipts say of the merchant (docs/decisions.md, "Receipts a shop
 * can hand out"). Owners change it in a form; staff read it.
 */
export function settingsBody(details: ReceiptDetails, user: PageUser): Html {
  const s = settingsTranslator(user.lang);
  const t = translator(user.lang);
  if (user.role !== 'owner') {
    const value = (v: string | null) => (v === null ? html`<span class="muted">${s('notSet')}</span>` : v);
    return html`<section aria-labelledby="receipt-details">
      <h2 id="receipt-details">${s('receiptDetails')}</h2>
      <dl class="facts">
        <dt>${s('legalName')}</dt>
        <dd>${value(details.legalName)}</dd>
        <dt>${s('legalAddress')}</dt>
        <dd class="pre-line">${value(details.address)}</dd>
        <dt>${s('taxNumber')}</dt>
        <dd>${value(details.taxNumber)}</dd>
      </dl>
      <p class="muted">${s('ownersOnlySettings')}</p>
    </section>`;
  }
  return html`<section aria-labelledby="receipt-details">
    <h2 id="receipt-details">${s('receiptDetails')}</h2>
    <p class="muted">${s('receiptDetailsHelp')}</p>
    <form
      class="card"
      data-api="PUT /portal/api/v1/receiptDetails"
      data-next="stay"
      data-ok="${t('saved')}"
      id="receipt-details-form"
    >
      <label
        >${s('legalName')}
        <input type="text" name="legalName" maxlength="200" value="${details.legalName ?? ''}" />
        <small class="muted">${s('legalNameHelp')}</small></label
      >
      <label
        >${s('legalAddress')}
        <textarea name="address" rows="3" maxlength="300">${details.address ?? ''}</textarea>
        <small class="muted">${s('legalAddressHelp')}</small></label
      >
      <label
        >${s('taxNumber')}
        <input
          type="text"
          name="taxNumber"
          maxlength="40"
          pattern=" *[A-Za-z]{2}(?:(?:[ .]|-)*[0-9A-Za-z+*]){2,12} *"
          autocapitalize="characters"
          value="${details.taxNumber ?? ''}"
        />
        <small class="muted">${s('taxNumberHelp')}</small></label
      >
      <p class="form-error" role="alert" hidden></p>
      <p class="form-ok" role="status" hidden></p>
      <button type="submit">${t('save')}</button>
    </form>
  </section>`;
}
