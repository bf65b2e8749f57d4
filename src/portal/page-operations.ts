import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import { type PageUser, badge, dateTime } from './layout.js';
import type { TerminalSchema } from './schemas.js';
import { translator } from './strings.js';

type Terminal = Static<typeof TerminalSchema>;

const when = (user: PageUser, iso: string | null) => dateTime(iso, user.lang, user.merchant.timeZone);

export function terminalsBody(units: Terminal[], user: PageUser): Html {
  const t = translator(user.lang);
  if (units.length === 0)
    return html`<p class="muted empty">${t('emptyTerminals')}</p>
      <dl class="facts">
        <dt>${t('merchantName')}</dt>
        <dd><code>${user.merchant.serviceUserName}</code></dd>
      </dl>`;
  return html`<div class="table-wrap">
    <table id="terminals" class="stack-on-phone">
      <thead>
        <tr>
          <th>${t('instanceName')}</th>
          <th>${t('outlet')}</th>
          <th>${t('vendor')}</th>
          <th>${t('lastSeen')}</th>
          <th>${t('state')}</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${units.map((u) => {
          const action = u.activated ? 'deactivate' : 'activate';
          // Stopping a till that trades is the owner's call, and asked first; staff may activate one.
          const change =
            action === 'deactivate' && user.role !== 'owner'
              ? html`<small class="muted">${t('ownerDeactivates')}</small>`
              : html`<form
                  data-api="POST /portal/api/v1/terminals/${encodeURIComponent(u.trackingUnitId)}/${action}"
                  data-next="reload"
                  data-no-body
                  ${
                    action === 'deactivate'
                      ? html`data-confirm="${t('deactivateConfirm').replace('{name}', u.instanceName)}"`
                      : ''
                  }
                >
                  <button
                    type="submit"
                    class="${u.activated ? 'secondary' : ''}"
                    aria-label="${t(action)} ${u.instanceName}"
                  >
                    ${t(action)}
                  </button>
                </form>`;
          return html`<tr data-terminal="${u.trackingUnitId}">
            <td class="url" data-label="${t('instanceName')}">
              <strong>${u.instanceName}</strong><br /><small class="muted">${u.trackingUnitId}</small>
            </td>
            <td data-label="${t('outlet')}">${u.outletName ?? `#${u.outletId}`}</td>
            <td data-label="${t('vendor')}">${u.devKeyName}</td>
            <td data-label="${t('lastSeen')}">${u.lastSeen ? when(user, u.lastSeen) : t('never')}</td>
            <td class="phone-first" data-label="${t('state')}">
              ${u.activated ? badge('yes', t('active')) : badge('no', t(u.deactivated ? 'deactivatedState' : 'inactive'))}
            </td>
            <td>${change}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}
