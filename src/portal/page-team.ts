import type { Static } from 'typebox';
import type { PortalTeamMemberSchema } from '../wire/documents/portal-user.schemas.js';
import { codeWord } from './code-words.js';
import { type Html, html } from './html.js';
import { type PageUser, badge, dateTime } from './layout.js';
import { enrolTranslator } from './strings-enrol.js';
import { type SettingsTranslate, settingsTranslator } from './strings-settings.js';

type Member = Static<typeof PortalTeamMemberSchema>;

/** The texts of the errors these forms can meet, in the user's language, for portal.js (data-error-<code>). */
function errorTexts(s: SettingsTranslate): Html {
  return html`data-error-current-password-wrong="${s('errorCurrentPassword')}"
  data-error-password-too-short="${s('errorTooShort')}" data-error-sign-in-locked="${s('errorLocked')}"
  data-error-portal-user-exists="${s('errorUserExists')}" data-error-role-forbidden="${s('errorNotOwner')}"
  data-error-not-found="${s('errorGone')}"
  data-error-invitations-throttled="${s('errorInvitationsThrottled')}"
  data-error-colleague-signed-in="${s('errorColleagueSignedIn')}"`;
}

/** A new password's field: the sign-up rule (10 to 200 characters), for the browser's password manager. */
function newPasswordField(label: string, name: string, help: string | null, required = true): Html {
  return html`<label
    >${label}
    <input
      type="password"
      name="${name}"
      minlength="10"
      maxlength="200"
      ${required ? html`required` : ''}
      autocomplete="new-password"
    />
    ${help === null ? '' : html`<small class="muted">${help}</small>`}</label
  >`;
}

/** The roles a form offers, in the user's language. */
function roleOptions(user: PageUser, selected: Member['role']): Html[] {
  return (['staff', 'owner'] as const).map(
    (r) =>
      html`<option value="${r}" ${r === selected ? html`selected` : ''}>${codeWord(user.lang, r)}</option>`,
  );
}

/** An owner's changes to a colleague: the role, a new password, the removal (each asked or confirmed). */
function colleagueActions(m: Member, user: PageUser, s: SettingsTranslate): Html {
  const api = `/portal/api/v1/users/${m.id}`;
  return html`<details class="member-actions">
    <summary>${s('changeColleague')}</summary>
    <form class="inline" data-api="PATCH ${api}" data-next="reload" ${errorTexts(s)}>
      <label
        >${s('role')}
        <select name="role">
          ${roleOptions(user, m.role)}
        </select></label
      >
      <button type="submit" aria-label="${s('saveRole')}: ${m.email}">${s('saveRole')}</button>
      <p class="form-error" role="alert" hidden></p>
    </form>
    <form
      class="inline"
      data-api="PUT ${api}/password"
      ${errorTexts(s)}
      data-next="stay"
      data-ok="${s('colleaguePasswordSet')}"
    >
      ${newPasswordField(s('newPassword'), 'password', null)}
      <button type="submit" aria-label="${s('setPassword')}: ${m.email}">${s('setPassword')}</button>
      <p class="form-error" role="alert" hidden></p>
      <p class="form-ok" role="status" hidden></p>
    </form>
    ${
      m.lastSignedInAt === null
        ? html`<form data-api="POST ${api}/invitation" data-next="reload" ${errorTexts(s)} data-no-body>
            <button type="submit" class="secondary" aria-label="${s('resendInvitation')}: ${m.email}">
              ${s('resendInvitation')}
            </button>
            <p class="form-error" role="alert" hidden></p>
          </form>`
        : ''
    }
    <form
      data-api="DELETE ${api}"
      data-next="reload"
      ${errorTexts(s)}
      data-no-body
      data-confirm="${s('removeConfirm')} ${m.email}"
    >
      <button type="submit" class="secondary" aria-label="${s('remove')}: ${m.email}">${s('remove')}</button>
      <p class="form-error" role="alert" hidden></p>
    </form>
  </details>`;
}

/** An invitation not yet taken up: until when its link works, or since when it has expired. */
function invitationFact(m: Member, user: PageUser, s: SettingsTranslate): Html {
  const tz = user.merchant.timeZone;
  return html`<dt>${s('invitation')}</dt>
    <dd>
      ${
        m.invitationOpenUntil === null
          ? html`${s('invitationExpired')} ${dateTime(m.invitedAt, user.lang, tz)}`
          : html`${s('invitationOpenUntil')} ${dateTime(m.invitationOpenUntil, user.lang, tz)}`
      }
    </dd>`;
}

function memberCard(m: Member, user: PageUser, s: SettingsTranslate): Html {
  const owner = user.role === 'owner';
  return html`<article class="card member" data-member="${m.id}" aria-labelledby="member-${m.id}">
    <div class="delivery-head">
      <h3 id="member-${m.id}" class="url">${m.email}</h3>
      ${m.you ? badge('yes', s('you')) : ''} ${m.locked ? badge('failed', s('lockedOut')) : ''}
    </div>
    <dl class="facts">
      <dt>${s('role')}</dt>
      <dd>${codeWord(user.lang, m.role)}</dd>
      <dt>${s('lastSignIn')}</dt>
      <dd>
        ${
          m.lastSignedInAt === null
            ? html`<span class="muted">${s('neverSignedIn')}</span>`
            : dateTime(m.lastSignedInAt, user.lang, user.merchant.timeZone)
        }
      </dd>
      <dt>${s('invited')}</dt>
      <dd>${dateTime(m.createdAt, user.lang, user.merchant.timeZone)}</dd>
      ${m.invitedAt === null ? '' : invitationFact(m, user, s)}
    </dl>
    ${owner && !m.you ? colleagueActions(m, user, s) : ''}
  </article>`;
}

function inviteForm(user: PageUser, s: SettingsTranslate): Html {
  return html`<form
    class="card"
    data-api="POST /portal/api/v1/users"
    data-next="reload"
    id="invite-form"
    ${errorTexts(s)}
    data-error-invalid-request-email="${enrolTranslator(user.lang)('emailRefused')}"
  >
    <h3>${s('invite')}</h3>
    <p class="muted">${s('inviteHelp')}</p>
    <label
      >${s('email')}
      <input class="address" type="email" name="email" required maxlength="254" autocomplete="off"
    /></label>
    ${newPasswordField(s('firstPassword'), 'password', s('firstPasswordHelp'), false)}
    <label
      >${s('role')}
      <select name="role">
        ${roleOptions(user, 'staff')}
      </select></label
    >
    <p class="form-error" role="alert" hidden></p>
    <button type="submit">${s('inviteButton')}</button>
  </form>`;
}

/** The settings page's team: who has access and with which role; owners invite, change and remove. */
export function teamSection(team: Member[], user: PageUser): Html {
  const s = settingsTranslator(user.lang);
  const owner = user.role === 'owner';
  return html`<section aria-labelledby="team">
    <h2 id="team">${s('team')}</h2>
    <p class="muted">${s('teamHelp')}</p>
    <div id="team-list">${team.map((m) => memberCard(m, user, s))}</div>
    ${owner ? inviteForm(user, s) : html`<p class="muted">${s('ownersOnlyTeam')}</p>`}
  </section>`;
}

/** The settings page's own password: changed with the current one, other sessions end. */
export function ownPasswordSection(user: PageUser): Html {
  const s = settingsTranslator(user.lang);
  return html`<section aria-labelledby="own-password">
    <h2 id="own-password">${s('yourPassword')}</h2>
    <form
      class="card"
      data-api="PUT /portal/api/v1/me/password"
      ${errorTexts(s)}
      data-next="stay"
      data-ok="${s('passwordChanged')}"
      id="own-password-form"
    >
      <input type="email" name="" autocomplete="username" value="${user.email}" hidden disabled />
      <label
        >${s('currentPassword')}
        <input
          type="password"
          name="currentPassword"
          maxlength="200"
          required
          autocomplete="current-password"
      /></label>
      ${newPasswordField(s('newPassword'), 'newPassword', s('newPasswordHelp'))}
      <p class="form-error" role="alert" hidden></p>
      <p class="form-ok" role="status" hidden></p>
      <button type="submit">${s('changePassword')}</button>
    </form>
  </section>`;
}
