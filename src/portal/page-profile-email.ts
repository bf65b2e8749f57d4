import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import { type PageUser, dateTime } from './layout.js';
import type { ProfileSchema } from './schemas.js';
import { receiptMailText } from './page-receipt-mail.js';
import { basketTranslator } from './strings-baskets.js';
import { translator } from './strings.js';

type Profile = Static<typeof ProfileSchema>;

/**
 * A customer's e-mail address corrected by an owner (docs/decisions.md, "A customer's e-mail address
 * corrected"): the form, for owners, and every change with who made it, for everyone; and the
 * receipts refused or given up, to send again once the address is right ("Sending the receipt again").
 */
export function profileEmailPart(p: Profile, user: PageUser): Html {
  const t = translator(user.lang);
  const b = basketTranslator(user.lang);
  const form =
    user.role === 'owner'
      ? html`<form
          class="card"
          data-api="PUT /portal/api/v1/profiles/${p.profileId}/email"
          data-next="reload"
          data-error-invalid-request="${b('emailInvalid')}"
        >
          <h2>${b('emailCorrect')}</h2>
          <label for="profile-email">${t('email')}</label>
          <input
            id="profile-email"
            class="address"
            name="email"
            type="email"
            required
            maxlength="320"
            autocomplete="off"
            value="${p.email ?? ''}"
            aria-describedby="profile-email-help"
          />
          <p class="help" id="profile-email-help">${b('emailCorrectHelp')}</p>
          <p class="form-error" role="alert" hidden></p>
          <button type="submit">${b('emailSave')}</button>
        </form>`
      : '';
  const changes =
    p.emailChanges.length === 0
      ? ''
      : html`<div class="card">
          <h2 id="email-changes-title">${b('emailChanges')}</h2>
          <div class="table-wrap">
            <table id="profile-email-changes" class="stack-on-phone" aria-labelledby="email-changes-title">
              <thead>
                <tr>
                  <th>${t('time')}</th>
                  <th>${b('emailOld')}</th>
                  <th>${b('emailNew')}</th>
                  <th>${b('emailBy')}</th>
                </tr>
              </thead>
              <tbody>
                ${p.emailChanges.map(
                  (c) =>
                    html`<tr>
                      <td data-label="${t('time')}">${dateTime(c.at, user.lang, user.merchant.timeZone)}</td>
                      <td class="phone-wide" data-label="${b('emailOld')}">${c.oldEmail ?? '—'}</td>
                      <td class="phone-wide" data-label="${b('emailNew')}">${c.newEmail ?? '—'}</td>
                      <td class="phone-wide" data-label="${b('emailBy')}">${c.by}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>
        </div>`;
  const undelivered =
    p.undeliveredReceipts === 0
      ? ''
      : html`<form
          class="card"
          id="undelivered-receipts"
          data-api="POST /portal/api/v1/profiles/${p.profileId}/receiptMails"
          data-no-body
          data-next="reload"
          data-error-receipt-mail-nobody="${b('resendNobody')}"
        >
          <h2>${b('undelivered')}</h2>
          <p>${b('undeliveredText').replace('{n}', String(p.undeliveredReceipts))}</p>
          <p class="form-error" role="alert" hidden></p>
          <button type="submit">${b('undeliveredSend')}</button>
        </form>`;
  return html`${undelivered}${form}${welcomeMailPart(p, user)}${changes}`;
}

/**
 * What became of the customer's welcome mail, and sending it (again) (docs/decisions.md, "The
 * welcome mail sent again"): offered, owners and staff alike, to a customer with an address whose
 * last welcome mail is not on its way.
 */
function welcomeMailPart(p: Profile, user: PageUser): Html {
  const b = basketTranslator(user.lang);
  const mail = p.welcomeMail;
  const state =
    mail === null
      ? b('welcomeNone')
      : mail.kind === 'not_sent'
        ? b('welcomeNoAddress')
        : receiptMailText({ receiptMail: mail }, user);
  const action =
    p.email === null
      ? html`<p class="muted">${b('welcomeNeedsAddress')}</p>`
      : mail?.kind === 'pending'
        ? ''
        : html`<p class="form-error" role="alert" hidden></p>
            <button type="submit" id="send-welcome-mail">
              ${b(mail === null ? 'welcomeSend' : 'welcomeSendAgain')}
            </button>
            <p class="help">${b('welcomeHelp')}</p>`;
  return html`<form
    class="card"
    id="welcome-mail"
    data-api="POST /portal/api/v1/profiles/${p.profileId}/welcomeMail"
    data-no-body
    data-next="reload"
    data-error-welcome-mail-pending="${b('welcomePending')}"
    data-error-welcome-mail-no-address="${b('welcomeNeedsAddress')}"
  >
    <h2>${b('welcome')}</h2>
    <p id="welcome-mail-state">${state}</p>
    ${action}
  </form>`;
}
