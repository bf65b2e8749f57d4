import type { PortalLang } from '../portal-users/portal-user.store.js';
import { type Html, html, jsonBlock } from './html.js';
import { type PageUser, badge, dayText, money } from './layout.js';
import {
  type CampaignPageTranslate,
  campaignPageTranslator,
  fieldMessages,
} from './strings-campaign-page.js';
import { translator } from './strings.js';
import { currencyExponent, majorToMinor } from '../shared/money.js';

/**
 * The campaign page beyond its form: templates to start from, the state with pause / resume /
 * end, the figures of the last 30 days with their chart, and the dry run's basket built from a
 * recent basket or from the sortiment's articles (docs/decisions.md, "Campaign and loyalty-scheme
 * forms").
 */

export interface TemplateArticle {
  plu: string;
  name: string;
  groupId: string | null;
  groupName: string | null;
  prices?: { value: string; currency: string }[];
}

export const TEMPLATE_KEYS = ['happy-hour', 'group-percent', 'buy-n-get-one', 'bill-over'] as const;
export type TemplateKey = (typeof TEMPLATE_KEYS)[number];

/**
 * An empty campaign: the name, the discount and the articles are the owner's to give (one empty
 * article row, so that a campaign saved without articles is refused rather than made for every
 * article).
 */
export const EMPTY_CAMPAIGN = { name: '', type: 'product', products: [{ plu: '' }] };
/** A loyalty scheme starts from an example: stamps on a coffee. */
export const EMPTY_SCHEME = {
  name: 'Coffee stamps',
  earn: [{ per: 'unit', products: [{ plu: '1001' }], points: 1 }],
  reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
};

/** A template's definition, on the first article group of the merchant's sortiments when there is one. */
export function templateDefinition(key: TemplateKey, lang: PortalLang, articles: TemplateArticle[]): object {
  const c = campaignPageTranslator(lang, { currency: '', timeZone: '' });
  const group = articles.find((a) => a.groupId !== null)?.groupId ?? '';
  const onGroup = [{ group }];
  switch (key) {
    case 'happy-hour':
      return {
        name: c('nameHappyHour'),
        type: 'product',
        discount: { percent: 20 },
        products: onGroup,
        schedule: [{ days: [1, 2, 3, 4, 5], from: '15:00', to: '17:00' }],
      };
    case 'group-percent':
      return { name: c('nameGroupPercent'), type: 'product', discount: { percent: 10 }, products: onGroup };
    case 'buy-n-get-one':
      return {
        name: c('nameBuyNGetOne'),
        type: 'quantity',
        discount: { percent: 100 },
        products: onGroup,
        buy: 2,
        get: 1,
      };
    case 'bill-over':
      return { name: c('nameBillOver'), type: 'bill', discount: { amount: 5 }, minTotal: 30 };
  }
}

const TEMPLATE_LABELS: Record<TemplateKey, Parameters<CampaignPageTranslate>[0]> = {
  'happy-hour': 'tplHappyHour',
  'group-percent': 'tplGroupPercent',
  'buy-n-get-one': 'tplBuyNGetOne',
  'bill-over': 'tplBillOver',
};

/** Links that open the new-campaign form filled from a template (no script needed). */
export function templateBar(user: PageUser, chosen: TemplateKey | null): Html {
  const c = translatorOf(user);
  return html`<nav class="card templates" aria-labelledby="tpl-title">
    <h2 id="tpl-title">${c('startFrom')}</h2>
    <p class="muted">${c('startFromHelp')}</p>
    <ul class="chips">
      ${TEMPLATE_KEYS.map(
        (k) =>
          html`<li>
            <a
              class="button secondary"
              href="/portal/campaigns/new?template=${k}"
              ${chosen === k ? html`aria-current="true"` : ''}
              >${c(TEMPLATE_LABELS[k])}</a
            >
          </li>`,
      )}
      <li><a class="button secondary" href="/portal/campaigns/new">${c('blank')}</a></li>
    </ul>
  </nav>`;
}

/** The campaign pages' words in the user's language, with the merchant's currency and time zone. */
export function translatorOf(user: PageUser): CampaignPageTranslate {
  return campaignPageTranslator(user.lang, {
    currency: user.merchant.currency,
    timeZone: user.merchant.timeZone,
  });
}

/** The words an owner reads beside a refused field, for rule-form.js. */
export function fieldMessagesScript(user: PageUser): Html {
  const c = translatorOf(user);
  const data = {
    fields: fieldMessages(user.lang, { currency: user.merchant.currency, timeZone: user.merchant.timeZone }),
    notSaved: c('notSaved'),
    notTried: c('notTried'),
    checkField: c('checkField'),
  };
  return jsonBlock('field-messages', data);
}

export type RuleStateName = 'scheduled' | 'live' | 'paused' | 'ended';

/**
 * The state in words, and pause / resume / end for owners (end asks first). A live campaign says
 * where it gives its rewards, by its channels (absent: the tills and online orders); a live loyalty
 * scheme, that the tills give its points and rewards.
 */
export function statePanel(
  segment: 'campaigns' | 'loyaltySchemes',
  id: number,
  state: RuleStateName,
  user: PageUser,
  channels?: readonly string[] | null,
): Html {
  const c = translatorOf(user);
  const t = translator(user.lang);
  const scheme = segment === 'loyaltySchemes';
  const tills = !channels || channels.includes('pos');
  const online = !channels || channels.includes('checkout');
  const campaignLive = tills && online ? 'stateLiveBoth' : online ? 'stateLiveOnline' : 'stateLive';
  const words = {
    live: scheme ? 'stateLiveScheme' : campaignLive,
    scheduled: 'stateScheduled',
    paused: 'statePaused',
    ended: 'stateEnded',
  } as const;
  const stateText = state === 'paused' ? c('paused') : t(state);
  const helps = {
    pause: scheme ? 'pauseHelpScheme' : 'pauseHelp',
    resume: scheme ? 'resumeHelpScheme' : 'resumeHelp',
    end: scheme ? 'endHelpScheme' : 'endHelp',
  } as const;
  const action = (name: 'pause' | 'resume' | 'end') =>
    html`<form
      data-api="POST /portal/api/v1/${segment}/${id}/${name}"
      data-next="reload"
      data-no-body
      ${name === 'end' ? html`data-confirm="${c(segment === 'campaigns' ? 'endConfirm' : 'endConfirmScheme')}"` : ''}
      class="state-action"
    >
      <button
        type="submit"
        class="${name === 'end' ? 'danger' : 'secondary'}"
        aria-describedby="help-${name}"
      >
        ${c(name)}
      </button>
      <p class="muted" id="help-${name}">${c(helps[name])}</p>
      <p class="form-error" role="alert" hidden></p>
    </form>`;
  const owner = user.role === 'owner';
  return html`<section class="card" aria-labelledby="state-title">
    <h2 id="state-title">${c('stateTitle')}: ${badge(state, stateText)}</h2>
    <p>${c(words[state])}</p>
    ${
      owner && state !== 'ended'
        ? html`<div class="state-actions">
            ${state === 'paused' ? action('resume') : action('pause')} ${action('end')}
          </div>`
        : ''
    }
  </section>`;
}

export interface BudgetFields {
  budget?: {
    total?: number | null;
    redemptions?: number | null;
    period?: string | null;
    periodAmount?: number | null;
  } | null;
  budgetRemaining?: {
    total: number | null;
    redemptions: number | null;
    period: { start: string; amount: number } | null;
  } | null;
}

/**
 * The campaign's budgets and what is left of them now (docs/decisions.md, "Budgets on the campaign
 * page"): one row per budget with its limit and what is left, the period's row from its first day.
 */
export function budgetSection(record: BudgetFields, user: PageUser): Html {
  const c = translatorOf(user);
  const { lang } = user;
  const { currency } = user.merchant;
  const exponent = currencyExponent(currency);
  const amount = (major: number | null | undefined) => {
    const minor = major === null || major === undefined ? null : majorToMinor(major, exponent);
    return minor === null ? '' : money(minor, currency, lang);
  };
  const b = record.budget ?? null;
  const left = record.budgetRemaining ?? null;
  const rows: [string, string, string][] = [];
  if (b !== null && left !== null) {
    if (left.total !== null) rows.push([c('budgetTotalRow'), amount(b.total), amount(left.total)]);
    if (left.redemptions !== null) {
      rows.push([c('budgetBasketsRow'), String(b.redemptions ?? ''), String(left.redemptions)]);
    }
    if (left.period !== null) {
      const name =
        b.period === 'week' ? 'budgetWeekRow' : b.period === 'month' ? 'budgetMonthRow' : 'budgetDayRow';
      rows.push([
        `${c(name)} (${c('budgetSince')} ${dayText(left.period.start, lang)})`,
        amount(b.periodAmount),
        amount(left.period.amount),
      ]);
    }
  }
  return html`<section class="card" aria-labelledby="budget-title" data-budget>
    <h2 id="budget-title">${c('budgetTitle')}</h2>
    ${
      rows.length === 0
        ? html`<p class="muted">${c('budgetNone')}</p>`
        : html`<div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>${c('budgetTitle')}</th>
                    <th class="num">${c('budgetLimit')}</th>
                    <th class="num">${c('budgetLeft')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${rows.map(
                    ([name, limit, rest]) =>
                      html`<tr>
                        <td>${name}</td>
                        <td class="num">${limit}</td>
                        <td class="num" data-budget-left>${rest}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            <p class="muted">${c('budgetHelp')}</p>`
    }
  </section>`;
}

/** A campaign limited to status tiers: which, of which scheme (docs/decisions.md, "Status tiers"). */
export function tierLimitSection(
  tiers: { schemeId: number; names: string[] } | null | undefined,
  schemeName: string | null,
  user: PageUser,
): Html {
  if (!tiers) return html``;
  const c = translatorOf(user);
  const text = c('tiersOnly')
    .replace('{scheme}', schemeName ?? `#${tiers.schemeId}`)
    .replace('{names}', tiers.names.join(c('tiersOr')));
  return html`<section class="card" aria-labelledby="tiers-title" data-tier-limit>
    <h2 id="tiers-title">${c('tiersTitle')}</h2>
    <p>${text}</p>
    <p class="muted">${c('tiersHelp')}</p>
  </section>`;
}
