import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import type { PageUser } from './layout.js';
import type { ProfileSchema } from './schemas.js';
import { type Language, languageOf } from '../receipts/receipt-text.js';
import { enrolTranslator } from './strings-enrol.js';

type Profile = Static<typeof ProfileSchema>;

/** What the enrolment form starts with: a search that found nobody, or a card number not known yet. */
export interface EnrolPrefill {
  fullName: string;
  email: string;
  tokenId: string;
}

/** The refusals the enrolment and link forms word in the user's language (data-error-<code>). */
function refusals(user: PageUser): Html {
  const e = enrolTranslator(user.lang);
  return html`data-error-profile-email-taken="${e('emailTaken')}"
  data-error-conflict="${e('cardLinkedElsewhere')}" data-error-card-locked="${e('cardLocked')}"`;
}

/**
 * The form that enrols a customer at the counter (docs/decisions.md, "Enrolling a customer in the
 * portal"): name, address, the language of their mails and a card; a request id made with the form,
 * so that the form sent twice makes one customer. On success the customer's page opens.
 */
export function enrolBody(user: PageUser, prefill: EnrolPrefill): Html {
  const e = enrolTranslator(user.lang);
  return html`<form
    class="card"
    id="enrol-customer"
    data-api="POST /portal/api/v1/profiles"
    data-next="/portal/profiles/{id}"
    ${refusals(user)}
    data-error-invalid-request="${e('nameOrEmail')}"
    data-error-invalid-request-email="${e('emailRefused')}"
  >
    <p class="help">${e('enrolIntro')}</p>
    <label for="enrol-name">${e('fullName')}</label>
    <input id="enrol-name" name="fullName" maxlength="200" autocomplete="off" value="${prefill.fullName}" />
    <label for="enrol-email">${e('email')}</label>
    <input
      id="enrol-email"
      class="address"
      name="email"
      type="email"
      maxlength="320"
      autocomplete="off"
      value="${prefill.email}"
    />
    <label for="enrol-language">${e('language')}</label>
    <select id="enrol-language" name="language">
      <option value="de" ${user.lang === 'de' ? html`selected` : ''}>Deutsch</option>
      <option value="en" ${user.lang === 'en' ? html`selected` : ''}>English</option>
    </select>
    <label for="enrol-card">${e('cardNumber')}</label>
    <input
      id="enrol-card"
      name="tokenId"
      maxlength="200"
      autocomplete="off"
      value="${prefill.tokenId}"
      aria-describedby="enrol-card-help"
    />
    <p class="help" id="enrol-card-help">${e('cardNumberHelp')}</p>
    <label class="check"
      ><input
        type="checkbox"
        id="enrol-welcome"
        name="welcomeMail"
        checked
        aria-describedby="enrol-welcome-help"
      />
      ${e('welcomeMail')}</label
    >
    <p class="help" id="enrol-welcome-help">${e('welcomeMailHelp')}</p>
    <input type="hidden" name="requestId" value="${randomUUID()}" />
    <p class="form-error" role="alert" hidden></p>
    <button type="submit">${e('enrol')}</button>
  </form>`;
}

/** The customer page's form that links a card to them; the page shows the card once it is linked. */
export function linkCardForm(p: Profile, user: PageUser): Html {
  const e = enrolTranslator(user.lang);
  return html`<form
    class="card"
    id="link-card"
    data-api="POST /portal/api/v1/profiles/${p.profileId}/cards"
    data-next="reload"
    ${refusals(user)}
  >
    <h2>${e('linkCard')}</h2>
    <label for="link-card-id">${e('cardNumberShort')}</label>
    <input
      id="link-card-id"
      name="tokenId"
      required
      maxlength="200"
      autocomplete="off"
      aria-describedby="link-card-help"
    />
    <p class="help" id="link-card-help">${e('cardNumberHelp')}</p>
    <p class="form-error" role="alert" hidden></p>
    <button type="submit">${e('linkCardButton')}</button>
  </form>`;
}

/**
 * The customer page's form that sets their name and the language of their mails (docs/decisions.md,
 * "A customer's name and language changed in the portal"), for owners and staff alike.
 */
export function profileDetailsForm(p: Profile, user: PageUser): Html {
  const e = enrolTranslator(user.lang);
  const lang = p.language === null ? null : languageOf(p.language);
  const option = (value: Language, label: string) =>
    html`<option value="${value}" ${lang === value ? html`selected` : ''}>${label}</option>`;
  return html`<form
    class="card"
    id="profile-details"
    data-api="PUT /portal/api/v1/profiles/${p.profileId}/details"
    data-next="reload"
    data-error-invalid-request="${e('keepName')}"
  >
    <h2>${e('detailsTitle')}</h2>
    <label for="details-name">${e('fullName')}</label>
    <input id="details-name" name="fullName" maxlength="200" autocomplete="off" value="${p.fullName ?? ''}" />
    <label for="details-language">${e('language')}</label>
    <select id="details-language" name="language" aria-describedby="details-language-help">
      <option value="" ${lang === null ? html`selected` : ''}>${e('languageUnset')}</option>
      ${option('de', 'Deutsch')} ${option('en', 'English')}
    </select>
    <p class="help" id="details-language-help">${e('detailsHelp')}</p>
    <p class="form-error" role="alert" hidden></p>
    <button type="submit">${e('detailsSave')}</button>
  </form>`;
}
