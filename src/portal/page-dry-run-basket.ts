import { type Html, html, jsonBlock } from './html.js';
import { type PageUser, dateTime } from './layout.js';
import { campaignPageTranslator } from './strings-campaign-page.js';
import { translator } from './strings.js';
import type { TierSchemeChoice } from './rule-form-widgets.js';

/**
 * The dry run's basket without JSON: the till it comes from, a recent basket to start from, or
 * articles of the sortiment with quantities, the basket's time and a customer card or coupon code.
 * portal-assets/dry-run-basket.js builds the basket a till would send from them into the JSON,
 * which stays as the advanced view (docs/decisions.md, "Campaign and loyalty-scheme forms").
 */

export interface TillOption {
  trackingUnitId: string;
  instanceName: string;
  outletName: string;
}

/** The basket's own time (its Timestamp), by which the list is ordered; else when it came. */
function basketTime(b: RecentBasketView): string {
  return typeof b.body.Timestamp === 'string' ? b.body.Timestamp : b.uploadedAt;
}

export interface RecentBasketView {
  trackingUnitId: string;
  instanceName: string;
  basketId: string;
  uploadedAt: string;
  body: Record<string, unknown>;
}

export interface BasketArticle {
  plu: string;
  name: string;
  prices?: { value: string; currency: string }[];
}

/** Now as a `datetime-local` value in the merchant's time zone. */
function localNow(timeZone: string, nowMs: number): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(nowMs));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}`;
}

export function dryRunBasketFields(
  user: PageUser,
  tills: TillOption[],
  recent: RecentBasketView[],
  articles: BasketArticle[],
  nowMs: number,
  schemes: TierSchemeChoice[] = [],
): Html {
  const t = translator(user.lang);
  const { currency, timeZone } = user.merchant;
  const c = campaignPageTranslator(user.lang, { currency, timeZone });
  const priced = articles.map((a) => ({
    plu: a.plu,
    name: a.name,
    price: a.prices?.find((p) => p.currency === currency)?.value ?? a.prices?.[0]?.value ?? '',
  }));
  const row = html`<tr data-article-row>
    <td class="phone-wide" data-label="${c('article')}">
      <label class="skip" for="dry-a-0">${c('article')}</label>
      <input
        id="dry-a-0"
        data-part="plu"
        list="dry-articles"
        aria-describedby="dry-article-help"
        autocomplete="off"
      />
    </td>
    <td data-label="${c('pieces')}">
      <label class="skip" for="dry-q-0">${c('pieces')}</label>
      <input id="dry-q-0" data-part="amount" inputmode="decimal" value="1" size="4" />
    </td>
    <td data-label="${c('unitPrice')}">
      <label class="skip" for="dry-p-0">${c('unitPrice')}</label>
      <input id="dry-p-0" data-part="price" inputmode="decimal" size="6" />
    </td>
    <td><button type="button" class="secondary" data-remove-article>${c('removeArticle')}</button></td>
  </tr>`;
  return html`<div class="field">
      <label for="dry-till">${c('till')}</label>
      <select id="dry-till" aria-describedby="dry-till-help">
        ${tills.map(
          (x) => html`<option value="${x.trackingUnitId}">${x.instanceName} · ${x.outletName}</option>`,
        )}
        <option value="">${c('noTill')}</option>
      </select>
      <p class="muted" id="dry-till-help">${c('tillHelp')}</p>
    </div>
    ${
      recent.length === 0
        ? ''
        : html`<div class="field">
            <label for="dry-recent">${c('recentBasket')}</label>
            <select id="dry-recent" aria-describedby="dry-recent-help">
              <option value="">${c('chooseBasket')}</option>
              ${recent.map(
                (b, i) =>
                  html`<option value="${i}">
                    ${dateTime(basketTime(b), user.lang, timeZone)} · ${b.instanceName} ·
                    ${typeof b.body.BillNumber === 'string' ? b.body.BillNumber : b.basketId}
                  </option>`,
              )}
            </select>
            <p class="muted" id="dry-recent-help">${c('recentBasketHelp')}</p>
            ${jsonBlock('dry-recent-data', recent)}
          </div>`
    }
    <fieldset class="dry-articles">
      <legend>${c('articlesTitle')}</legend>
      <p class="muted" id="dry-article-help">${c('articleHelp')}</p>
      <div class="table-wrap">
        <table class="stack-on-phone">
          <thead>
            <tr>
              <th>${c('article')}</th>
              <th>${c('pieces')}</th>
              <th>${c('unitPrice')}</th>
              <th><span class="skip">${c('removeArticle')}</span></th>
            </tr>
          </thead>
          <tbody data-article-rows>
            ${row}
          </tbody>
        </table>
      </div>
      <template id="dry-article-row">${row}</template>
      <button type="button" class="secondary" data-add-article>${c('addArticle')}</button>
      <datalist id="dry-articles">
        ${priced.map((a) => html`<option value="${a.plu}" data-price="${a.price}">${a.name}</option>`)}
      </datalist>
    </fieldset>
    <div class="field">
      <label for="dry-time">${c('basketTime')}</label>
      <input
        id="dry-time"
        type="datetime-local"
        value="${localNow(timeZone, nowMs)}"
        aria-describedby="dry-time-help"
      />
      <p class="muted" id="dry-time-help">${c('basketTimeHelp')}</p>
    </div>
    <div class="field">
      <label for="dry-card">${c('customerCard')}</label>
      <input id="dry-card" autocomplete="off" aria-describedby="dry-card-help" />
      <p class="muted" id="dry-card-help">${c('customerCardHelp')}</p>
    </div>
    ${dryRunTierPicker(user, schemes)}
    <details id="dry-advanced">
      <summary>${c('advancedBasket')}</summary>
      <label for="dry-basket">${t('basket')}</label>
      <textarea id="dry-basket" rows="12" spellcheck="false"></textarea>
    </details>
    <textarea id="dry-body" data-body hidden aria-hidden="true"></textarea>`;
}

/**
 * The dry run's stand-in customer: a tier per running loyalty scheme with tiers, or no tier; sent as
 * the dry run's `consumer.tiers` when one is chosen (portal-assets/dry-run-basket.js), which
 * includes the live campaigns and schemes the tiers are of. No such scheme: nothing to pick.
 */
function dryRunTierPicker(user: PageUser, schemes: TierSchemeChoice[]): Html {
  const offered = schemes.filter((s) => s.tiers.length > 0 && !s.ended);
  if (offered.length === 0) return html``;
  const c = campaignPageTranslator(user.lang, user.merchant);
  return html`<fieldset class="dry-tiers" aria-describedby="dry-tiers-help">
    <legend>${c('dryTiers')}</legend>
    <p class="muted" id="dry-tiers-help">${c('dryTiersHelp')}</p>
    ${offered.map(
      (s) =>
        html`<div class="field">
          <label for="dry-tier-${s.id}">${s.name}</label>
          <select id="dry-tier-${s.id}" data-tier-scheme="${s.id}">
            <option value="">${c('dryNoTier')}</option>
            ${s.tiers.map((name) => html`<option value="${name}">${name}</option>`)}
          </select>
        </div>`,
    )}
  </fieldset>`;
}
