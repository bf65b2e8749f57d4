import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import type { PageUser } from './layout.js';
import type { ProfileSchema } from './schemas.js';
import { basketTranslator } from './strings-baskets.js';

type Profile = Static<typeof ProfileSchema>;

/**
 * The customer's uses of the campaigns with a usage limit per customer (docs/decisions.md, "A
 * customer's uses on their page"): what staff read when a customer asks why a campaign gave them
 * nothing, at the till or in the app.
 */
export function campaignUsesTable(p: Profile, user: PageUser): Html | string {
  if (p.campaignUses.length === 0) return '';
  const b = basketTranslator(user.lang);
  return html`<div class="card">
    <h2 id="campaign-uses-title">${b('campaignUses')}</h2>
    <p class="muted">${b('campaignUsesHelp')}</p>
    <div class="table-wrap">
      <table id="profile-campaign-uses" class="stack-on-phone">
        <thead>
          <tr>
            <th>${b('campaignUsesCampaign')}</th>
            <th class="num">${b('campaignUsesUsed')}</th>
            <th>${b('campaignUsesLeft')}</th>
          </tr>
        </thead>
        <tbody>
          ${p.campaignUses.map((u) => {
            const left = Math.max(0, u.limit - u.used);
            return html`<tr>
              <td class="phone-first" data-label="${b('campaignUsesCampaign')}">
                <a href="/portal/campaigns/${u.campaignId}">${u.name}</a>
                ${u.paused ? html`<br /><small class="muted">${b('campaignUsesPaused')}</small>` : ''}
              </td>
              <td class="num" data-label="${b('campaignUsesUsed')}">
                ${b('campaignUsesOf').replace('{used}', String(u.used)).replace('{limit}', String(u.limit))}
              </td>
              <td data-label="${b('campaignUsesLeft')}">
                ${left === 0 ? html`<strong>${b('campaignUsesNone')}</strong>` : String(left)}
              </td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
  </div>`;
}
