import type { OpenLink } from '../portal-users/password-reset.store.js';
import type { PortalLang } from '../portal-users/portal-user.store.js';
import { type Html, html } from './html.js';
import { settingsTranslator } from './strings-settings.js';

/** A forgotten password's pages (docs/decisions.md, "A forgotten password"): asked for, then set. */

/** Texts of the errors the two forms can meet, in the page's language, for portal.js (data-error-<code>). */
function errorTexts(lang: PortalLang): Html {
  const s = settingsTranslator(lang);
  return html`data-error-password-reset-invalid="${s('errorResetInvalid')}"
  data-error-password-reset-throttled="${s('errorResetThrottled')}"
  data-error-password-too-short="${s('errorTooShort')}"`;
}

export function forgotBody(lang: PortalLang): Html {
  const s = settingsTranslator(lang);
  return html`<div class="signin card">
    <form
      data-api="POST /portal/api/v1/passwordResets"
      data-next="stay"
      data-ok="${s('linkSent')}"
      ${errorTexts(lang)}
      id="forgot-form"
    >
      <p class="muted">${s('forgotHelp')}</p>
      <label
        >${s('email')} <input type="email" name="email" autocomplete="username" required autofocus
      /></label>
      <input type="hidden" name="lang" value="${lang}" />
      <p class="form-error" role="alert" hidden></p>
      <p class="form-ok" role="status" hidden></p>
      <button type="submit">${s('sendLink')}</button>
    </form>
    <p><a href="/portal/signin">${s('backToSignIn')}</a></p>
  </div>`;
}

/**
 * A link's form: a new password for a forgotten one, or the first one of a colleague invited. The
 * e-mail it signs in with is shown (and offered to the browser's password manager), not sent.
 */
export function resetBody(lang: PortalLang, token: string, link: OpenLink): Html {
  const s = settingsTranslator(lang);
  const invitation = link.purpose === 'invitation';
  return html`<div class="signin card">
    <form
      data-api="POST /portal/api/v1/passwordResets/redeem"
      data-next="/portal/signin?${invitation ? 'invited' : 'reset'}=1"
      ${errorTexts(lang)}
      id="reset-form"
    >
      <p class="muted">
        ${invitation ? html`${s('invitedHelp')} <strong>${link.merchantName}</strong>.` : s('resetHelp')}
      </p>
      <label
        >${s('email')} <input type="email" value="${link.email}" autocomplete="username" readonly
      /></label>
      <input type="hidden" name="token" value="${token}" />
      <label
        >${s('newPassword')}
        <input
          type="password"
          name="newPassword"
          minlength="10"
          maxlength="200"
          required
          autocomplete="new-password"
          autofocus
        />
      </label>
      <p class="form-error" role="alert" hidden></p>
      <button type="submit">${invitation ? s('setFirstPassword') : s('setNewPassword')}</button>
    </form>
    <p><a href="/portal/forgot">${s('forgotPassword')}</a></p>
  </div>`;
}

/** A link's page when the link no longer works: said before anyone types a new password. */
export function resetSpentBody(lang: PortalLang): Html {
  const s = settingsTranslator(lang);
  return html`<div class="signin card">
    <p class="form-error" role="alert">${s('linkSpent')}</p>
    <p><a href="/portal/forgot">${s('askNewLink')}</a></p>
    <p><a href="/portal/signin">${s('backToSignIn')}</a></p>
  </div>`;
}
