import type { PortalLang } from '../portal-users/portal-user.store.js';
import {
  type DashboardStep,
  type DashboardStepRow,
  MAX_DAYS_BY_DAY,
  MAX_DAYS_BY_WEEK,
  dashboardStep,
  sumBySteps,
} from '../reports/dashboard-steps.js';
import { currencyExponent } from '../shared/money.js';
import type { Dashboard } from './dashboard.routes.js';
import { type Html, html, jsonBlock } from './html.js';
import { type PageUser, dayText, money } from './layout.js';
import { change, count, kpi } from './dashboard-format.js';
import { orderFigures } from './dashboard-orders.js';
import { balanceFigures, balanceSteps } from './dashboard-balance.js';
import { chartLabel, stepLabel } from './step-labels.js';
import { type DashboardTranslate, dashboardTranslator } from './strings-dashboard.js';
import { notices } from './dashboard-notices.js';

type TopArticle = Dashboard['topArticlesByRevenue'][number];
type TopCampaign = Dashboard['topByUse'][number];

const locale = (lang: PortalLang) => (lang === 'de' ? 'de-DE' : 'en-GB');

/** A local day (YYYY-MM-DD) in the user's language: 14.11.2026, 14 Nov 2026. */
const dayLabel = dayText;

function periodForm(
  d: Dashboard,
  outlets: { id: number; name: string }[],
  outletId: number | null,
  t: DashboardTranslate,
): Html {
  const presets = [
    ['today', t('today')],
    ['yesterday', t('yesterday')],
    ['7d', t('last7')],
    ['30d', t('last30')],
  ] as const;
  const outletQuery = outletId ? `&outletId=${outletId}` : '';
  const csv = new URLSearchParams({
    from: d.from,
    to: d.to,
    ...(outletId ? { outletId: String(outletId) } : {}),
  });
  return html`<nav class="presets" aria-label="${t('periods')}">
      ${presets.map(
        ([key, label]) =>
          html`<a
            class="button ${d.preset === key ? '' : 'secondary'}"
            href="/portal/dashboard?preset=${key}${outletQuery}"
            ${d.preset === key ? html`aria-current="page"` : ''}
            >${label}</a
          >`,
      )}
    </nav>
    <form class="inline card" method="get" action="/portal/dashboard" aria-label="${t('range')}">
      <label>${t('from')} <input type="date" name="from" value="${d.from}" required /></label>
      <label>${t('to')} <input type="date" name="to" value="${d.to}" required /></label>
      <label
        >${t('outlet')}
        <select name="outletId">
          <option value="">${t('allOutlets')}</option>
          ${outlets.map((o) => html`<option value="${o.id}" ${o.id === outletId ? html`selected` : ''}>${o.name}</option>`)}
        </select>
      </label>
      <button type="submit">${t('show')}</button>
      <a class="button secondary" href="/portal/api/v1/dashboard.csv?${csv.toString()}" download
        >${t('downloadCsv')}</a
      >
    </form>`;
}

function kpis(d: Dashboard, lang: PortalLang, t: DashboardTranslate): Html {
  const m = (minor: number) => money(minor, d.currency, lang);
  const now = d.totals;
  const before = d.previous.totals;
  // Points earned and redeemed carry their direction; none is 0, not +0 or −0.
  const signed = (points: number, sign: '+' | '−') =>
    points === 0 ? count(0, lang) : `${sign}${count(points, lang)}`;
  return html`<div class="kpis">
    ${kpi(t('revenue'), m(now.revenueMinor), t('revenueHelp'), change(now.revenueMinor, before.revenueMinor, lang, t))}
    ${kpi(t('grantedBaskets'), count(now.baskets, lang), t('grantedHelp'), change(now.baskets, before.baskets, lang, t))}
    ${kpi(
      t('averageTicket'),
      m(now.averageTicketMinor),
      t('averageHelp'),
      change(now.averageTicketMinor, before.averageTicketMinor, lang, t),
    )}
    ${kpi(t('sales'), m(now.salesMinor), t('salesHelp'), change(now.salesMinor, before.salesMinor, lang, t))}
    ${kpi(t('rewards'), m(now.rewardsMinor), t('rewardsHelp'))}
    ${kpi(t('returns'), m(now.returnsMinor), t('returnsHelp', { n: count(now.returns, lang) }))}
    ${kpi(t('openBaskets'), count(now.openBaskets, lang), t('openHelp'))}
    ${kpi(t('points'), `${signed(now.pointsEarned, '+')} / ${signed(now.pointsRedeemed, '−')}`, `${t('pointsEarned')} / ${t('pointsRedeemed')}`)}
  </div>`;
}

/** A replica a few seconds behind is normal; from this lag on the page says so. */
const LAG_SHOWN_SECONDS = 5;

function articleTable(
  title: string,
  rows: TopArticle[],
  currency: string,
  lang: PortalLang,
  t: DashboardTranslate,
): Html {
  return html`<div class="card">
    <h2>${title}</h2>
    ${
      rows.length === 0
        ? html`<p class="muted">${t('noData')}</p>`
        : html`<div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>${t('article')}</th>
                  <th class="num">${t('quantity')}</th>
                  <th class="num">${t('sales')}</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (r) =>
                    html`<tr>
                      <td>
                        ${r.plu === null ? t('noPlu') : html`${r.name ?? r.plu} <span class="muted">${r.name ? r.plu : ''}</span>`}
                      </td>
                      <td class="num">${count(r.quantity, lang)}</td>
                      <td class="num">${money(r.salesMinor, currency, lang)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </div>`;
}

function campaignTable(
  title: string,
  rows: TopCampaign[],
  currency: string,
  lang: PortalLang,
  t: DashboardTranslate,
): Html {
  return html`<div class="card">
    <h2>${title}</h2>
    ${
      rows.length === 0
        ? html`<p class="muted">${t('noData')}</p>`
        : html`<div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>${t('campaign')}</th>
                  <th class="num">${t('uses')}</th>
                  <th class="num">${t('cost')}</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (r) =>
                    html`<tr>
                      <td><a href="/portal/campaigns/${r.campaignId}">${r.name}</a></td>
                      <td class="num">${count(r.uses, lang)}</td>
                      <td class="num">${money(r.costMinor, currency, lang)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </div>`;
}

/** The period's table: per step (day, week or month) and outlet. */
function stepTable(
  d: Dashboard,
  rows: DashboardStepRow[],
  step: DashboardStep,
  outletName: (id: number | null) => string,
  lang: PortalLang,
  t: DashboardTranslate,
  stepHeader: string,
): Html {
  const m = (minor: number) => money(minor, d.currency, lang);
  if (rows.length === 0) return html`<p class="muted">${t('noData')}</p>`;
  const c = (n: number) => count(n, lang);
  return html`<div class="table-wrap">
    <table id="dashboard-table" class="stack-on-phone">
      <thead>
        <tr>
          <th>${stepHeader}</th>
          <th>${t('outlet')}</th>
          <th class="num">${t('grantedBaskets')}</th>
          <th class="num">${t('sales')}</th>
          <th class="num">${t('rewards')}</th>
          <th class="num">${t('returns')}</th>
          <th class="num">${t('revenue')}</th>
          <th class="num">${t('openBaskets')}</th>
          <th class="num">${t('pointsEarned')}</th>
          <th class="num">${t('pointsRedeemed')}</th>
          <th class="num">${t('differs')}</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              <td data-label="${stepHeader}">${stepLabel(r, step, lang)}</td>
              <td class="phone-wide" data-label="${t('outlet')}">${outletName(r.outletId)}</td>
              <td class="num" data-label="${t('grantedBaskets')}">${c(r.baskets)}</td>
              <td class="num" data-label="${t('sales')}">${m(r.salesMinor)}</td>
              <td class="num" data-label="${t('rewards')}">${m(r.rewardsMinor)}</td>
              <td class="num" data-label="${t('returns')}">${m(r.returnsMinor)}</td>
              <td class="num phone-first" data-label="${t('revenue')}">${m(r.revenueMinor)}</td>
              <td class="num" data-label="${t('openBaskets')}">${c(r.openBaskets)}</td>
              <td class="num" data-label="${t('pointsEarned')}">${c(r.pointsEarned)}</td>
              <td class="num" data-label="${t('pointsRedeemed')}">${c(r.pointsRedeemed)}</td>
              ${
                r.totalValueDiffers > 0
                  ? html`<td class="num" data-label="${t('differs')}">${c(r.totalValueDiffers)}</td>`
                  : html`<td class="num blank"></td>`
              }
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export function dashboardBody(
  d: Dashboard,
  user: PageUser,
  outlets: { id: number; name: string }[],
  outletId: number | null,
): Html {
  const lang = user.lang;
  const t = dashboardTranslator(lang);
  // Up to 90 days by day, then by week, then by month (docs/decisions.md, "The dashboard's steps").
  const step = dashboardStep(d.from, d.to);
  const titles = {
    day: {
      sales: t('salesByDay'),
      loyalty: t('rewardsAndPoints'),
      table: t('byDayAndOutlet'),
      head: t('day'),
    },
    week: {
      sales: t('salesByWeek'),
      loyalty: t('rewardsAndPointsByWeek'),
      table: t('byWeekAndOutlet'),
      head: t('week'),
    },
    month: {
      sales: t('salesByMonth'),
      loyalty: t('rewardsAndPointsByMonth'),
      table: t('byMonthAndOutlet'),
      head: t('month'),
    },
  }[step];
  const chartSteps = sumBySteps(d.days, d.from, d.to, step, false);
  const outletName = (id: number | null) =>
    outlets.find((o) => o.id === id)?.name ?? (id === null ? '—' : `#${id}`);
  const span = (from: string, to: string) =>
    from === to ? dayLabel(from, lang) : `${dayLabel(from, lang)} – ${dayLabel(to, lang)}`;
  const until = d.previous.until
    ? ` ${t('until')} ${new Intl.DateTimeFormat(locale(lang), { timeStyle: 'short', timeZone: d.timeZone }).format(new Date(d.previous.until))}`
    : '';
  return html`${periodForm(d, outlets, outletId, t)}
    <p class="period" id="dashboard-period">
      <strong>${span(d.from, d.to)}</strong>${outletId ? ` · ${outletName(outletId)}` : ''} ·
      ${t('comparedWith')} ${span(d.previous.from, d.previous.to)}${until}
    </p>
    ${notices(d, outletId, lang, t)}
    ${
      d.replicaLagSeconds !== null && d.replicaLagSeconds >= LAG_SHOWN_SECONDS
        ? html`<p class="notice warning" role="status" id="replica-lag">
            ${t('replicaLag', { n: count(d.replicaLagSeconds, lang) })}
          </p>`
        : ''
    }
    ${kpis(d, lang, t)} ${orderFigures(d, lang, t)} ${balanceFigures(d, step, lang, t)}
    <div class="grid">
      <div class="card">
        <h2>${t('byHour')}</h2>
        <div class="chart"><canvas id="chart-hours" role="img" aria-label="${t('byHour')}"></canvas></div>
      </div>
      <div class="card">
        <h2>${titles.sales}</h2>
        <div class="chart"><canvas id="chart-sales" role="img" aria-label="${titles.sales}"></canvas></div>
      </div>
    </div>
    <div class="grid">
      ${articleTable(t('topArticlesRevenue'), d.topArticlesByRevenue, d.currency, lang, t)}
      ${articleTable(t('topArticlesCount'), d.topArticlesByCount, d.currency, lang, t)}
    </div>
    <div class="grid">
      <div class="card">
        <h2>${titles.loyalty}</h2>
        <div class="chart">
          <canvas id="chart-loyalty" role="img" aria-label="${titles.loyalty}"></canvas>
        </div>
      </div>
      ${campaignTable(t('topByUse'), d.topByUse, d.currency, lang, t)}
      ${campaignTable(t('topByCost'), d.topByCost, d.currency, lang, t)}
    </div>
    <div class="card">
      <h2>${titles.table}</h2>
      ${step === 'day' ? '' : html`<p class="muted" id="dashboard-steps">${t('stepsNote', { n: MAX_DAYS_BY_DAY, m: MAX_DAYS_BY_WEEK })}</p>`}
      ${stepTable(d, sumBySteps(d.days, d.from, d.to, step, true), step, outletName, lang, t, titles.head)}
    </div>
    ${jsonBlock('dashboard-data', {
      locale: locale(lang),
      from: d.from,
      to: d.to,
      currency: d.currency,
      scale: 10 ** currencyExponent(d.currency),
      step,
      steps: chartSteps.map((r) => ({
        from: r.from,
        to: r.to,
        label: chartLabel(r, step, lang),
        baskets: r.baskets,
        revenueMinor: r.revenueMinor,
        rewardsMinor: r.rewardsMinor,
        pointsEarned: r.pointsEarned,
        pointsRedeemed: r.pointsRedeemed,
      })),
      hours: d.hours,
      balance:
        d.storedBalance === null
          ? null
          : { label: t('balanceHeld'), steps: balanceSteps(d.storedBalance, chartSteps) },
      labels: {
        baskets: t('grantedBaskets'),
        revenue: t('revenue'),
        rewards: t('rewards'),
        earned: t('pointsEarned'),
        redeemed: t('pointsRedeemed'),
        points: t('points'),
        hour: t('hour'),
      },
    })}`;
}
