import { type Html, html } from './html.js';
import type { PortalLang } from '../portal-users/portal-user.store.js';
import { dryRunWords } from './strings-dry-run.js';

/** How many of the newest baskets the campaign page tries a campaign on. */
export const RECENT_BASKETS = 50;

/**
 * The campaign and scheme pages' dry run over the last baskets (docs/decisions.md, "Why a campaign
 * did not apply"): the form's campaign or scheme tried on the newest baskets the tills sent;
 * portal.js sends the draft (POST /portal/api/v1/dryRun/recent) and words the answer: for a
 * campaign, in how many it applies, what it gives, why not in the others, and the other campaigns
 * that applied there; for a scheme, the points it would earn the customers those baskets name.
 */
export function dryRunRecentSection(lang: PortalLang, currency: string, kind: 'campaign' | 'scheme'): Html {
  const w = dryRunWords(lang, currency).words;
  const limit = String(RECENT_BASKETS);
  const help = kind === 'scheme' ? w.recent_help_scheme : w.recent_help;
  return html`<h3 id="dry-last-title">${w.recent_title}</h3>
    <form
      id="dry-last"
      data-api="POST /portal/api/v1/dryRun/recent"
      data-next="dry-last"
      data-limit="${limit}"
      aria-labelledby="dry-last-title"
    >
      <input type="hidden" id="dry-last-body" data-body />
      <p class="muted">${help.replaceAll('{limit}', limit)}</p>
      <div class="actions">
        <button type="submit" class="secondary">${w.recent_try.replace('{limit}', limit)}</button>
      </div>
      <p class="form-error" role="alert" hidden></p>
    </form>
    <div id="dry-last-result" hidden tabindex="-1" aria-live="polite">
      <p data-summary></p>
      <ul data-reasons></ul>
      <p class="muted" data-skipped hidden></p>
      <div data-others-wrap hidden>
        <h4>${w.recent_others}</h4>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>${w.recent_campaign}</th>
                <th class="num">${w.recent_baskets}</th>
                <th class="num">${w.recent_discount_col}</th>
              </tr>
            </thead>
            <tbody data-others></tbody>
          </table>
        </div>
      </div>
    </div>`;
}
