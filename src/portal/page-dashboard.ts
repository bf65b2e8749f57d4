import type { Static } from 'typebox';
import { currencyExponent } from '../shared/money.js';
import { type Html, html, jsonBlock } from './html.js';
import { type PageUser, dayText, money } from './layout.js';
import type { DashboardSchema } from './schemas.js';
import { translator } from './strings.js';

type Dashboard = Static<typeof DashboardSchema>;

export function dashboardBody(
  d: Dashboard,
  user: PageUser,
  outlets: { id: number; name: string }[],
  outletId: number | null,
): Html {
  const t = translator(user.lang);
  const m = (minor: number) => money(minor, d.currency, user.lang);
  const total = d.days.reduce(
    (s, r) => ({
      baskets: s.baskets + r.baskets,
      revenue: s.revenue + r.revenueMinor,
      rewards: s.rewards + r.rewardsMinor,
      earned: s.earned + r.pointsEarned,
      redeemed: s.redeemed + r.pointsRedeemed,
    }),
    { baskets: 0, revenue: 0, rewards: 0, earned: 0, redeemed: 0 },
  );
  const outletName = (id: number | null) =>
    outlets.find((o) => o.id === id)?.name ?? (id === null ? '—' : `#${id}`);
  const query = new URLSearchParams({
    from: d.from,
    to: d.to,
    ...(outletId ? { outletId: String(outletId) } : {}),
  });
  const kpi = (label: string, value: string) =>
    html`<div class="kpi">
      <div class="label">${label}</div>
      <div class="value">${value}</div>
    </div>`;
  const top = (title: string, rows: Dashboard['topByUse']) =>
    html`<div class="card">
      <h2>${title}</h2>
      ${
        rows.length === 0
          ? html`<p class="muted">${t('noData')}</p>`
          : html`<table>
              <thead>
                <tr>
                  <th>${t('name')}</th>
                  <th class="num">${t('uses')}</th>
                  <th class="num">${t('cost')}</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (r) =>
                    html`<tr>
                      <td><a href="/portal/campaigns/${r.campaignId}">${r.name}</a></td>
                      <td class="num">${r.uses}</td>
                      <td class="num">${m(r.costMinor)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </div>`;
  return html` <form
      class="inline card"
      method="get"
      action="/portal/dashboard"
      aria-label="${t('dashboard')}"
    >
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
      <a class="button" href="/portal/api/v1/dashboard.csv?${query.toString()}" download
        >${t('downloadCsv')}</a
      >
    </form>
    <div class="kpis">
      ${kpi(t('basketsCount'), String(total.baskets))} ${kpi(t('revenue'), m(total.revenue))}
      ${kpi(t('rewards'), m(total.rewards))} ${kpi(t('pointsEarned'), String(total.earned))}
      ${kpi(t('pointsRedeemed'), String(total.redeemed))}
    </div>
    <div class="grid">
      <div class="card">
        <h2>${t('basketsCount')} · ${t('revenue')}</h2>
        <div class="chart">
          <canvas id="chart-sales" role="img" aria-label="${t('basketsCount')} / ${t('revenue')}"></canvas>
        </div>
      </div>
      <div class="card">
        <h2>${t('rewards')} · ${t('points')}</h2>
        <div class="chart">
          <canvas id="chart-loyalty" role="img" aria-label="${t('rewards')} / ${t('points')}"></canvas>
        </div>
      </div>
    </div>
    <div class="grid">${top(t('topByUse'), d.topByUse)}${top(t('topByCost'), d.topByCost)}</div>
    <div class="card">
      <h2>${t('day')} · ${t('outlet')}</h2>
      ${
        d.days.length === 0
          ? html`<p class="muted">${t('noData')}</p>`
          : html`<div class="table-wrap">
              <table id="dashboard-table">
                <thead>
                  <tr>
                    <th>${t('day')}</th>
                    <th>${t('outlet')}</th>
                    <th class="num">${t('basketsCount')}</th>
                    <th class="num">${t('revenue')}</th>
                    <th class="num">${t('rewards')}</th>
                    <th class="num">${t('pointsEarned')}</th>
                    <th class="num">${t('pointsRedeemed')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${d.days.map(
                    (r) =>
                      html`<tr>
                        <td>${dayText(r.day, user.lang)}</td>
                        <td>${outletName(r.outletId)}</td>
                        <td class="num">${r.baskets}</td>
                        <td class="num">${m(r.revenueMinor)}</td>
                        <td class="num">${m(r.rewardsMinor)}</td>
                        <td class="num">${r.pointsEarned}</td>
                        <td class="num">${r.pointsRedeemed}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </div>
    ${jsonBlock('dashboard-data', {
      days: d.days,
      currency: d.currency,
      scale: 10 ** currencyExponent(d.currency),
      labels: {
        baskets: t('basketsCount'),
        revenue: t('revenue'),
        rewards: t('rewards'),
        earned: t('pointsEarned'),
        redeemed: t('pointsRedeemed'),
      },
    })}`;
}
