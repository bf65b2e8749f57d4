import type { PortalLang } from '../portal-users/portal-user.store.js';
import type { DashboardStep } from '../reports/dashboard-steps.js';
import type { Dashboard } from './dashboard.routes.js';
import { type Html, html } from './html.js';
import { money } from './layout.js';
import { csvLink } from './page-search.js';
import type { DashboardKey, DashboardTranslate } from './strings-dashboard.js';

type Balance = NonNullable<Dashboard['storedBalance']>;

/** The chart's title per step of the period. */
const OVER_TIME: Record<DashboardStep, DashboardKey> = {
  day: 'balanceOverTime',
  week: 'balanceOverTimeWeek',
  month: 'balanceOverTimeMonth',
};

/**
 * The customers' stored balance on the dashboard (docs/decisions.md, "The customers' stored
 * balance on the dashboard"): held at the start, each kind of move with its sign, held at the end,
 * as a statement that adds up; and a chart of what was held at the end of each step. Not shown with
 * an outlet chosen (the balance is the merchant's) nor to a merchant whose customers never held
 * money.
 */
export function balanceFigures(
  d: Dashboard,
  step: DashboardStep,
  lang: PortalLang,
  t: DashboardTranslate,
): Html {
  const b = d.storedBalance;
  if (b === null) return html``;
  const m = (minor: number) => money(minor, d.currency, lang);
  const signed = (minor: number) => (minor > 0 ? `+${m(minor)}` : m(minor));
  const moves: [DashboardKey, number][] = [
    ['balanceTillLoaded', b.tillLoadedMinor],
    ['balanceTillPaid', -b.tillPaidMinor],
    ['balanceTopUps', b.topUpsMinor],
    ['balanceOrders', -b.ordersChargedMinor],
    ['balanceRefunds', b.ordersRefundedMinor],
    ['balanceCorrections', b.correctionsMinor],
  ];
  return html`<section class="card" id="dashboard-balance" aria-labelledby="dashboard-balance-title">
    <h2 id="dashboard-balance-title">${t('balanceTitle')}</h2>
    <p class="muted">${t('balanceNote')}</p>
    <div class="grid">
      <div class="table-wrap">
        <table id="balance-statement">
          <tbody>
            <tr>
              <th scope="row">${t('balanceOpening')}</th>
              <td class="num">${m(b.openingMinor)}</td>
            </tr>
            ${moves.map(
              ([key, minor]) =>
                html`<tr>
                  <th scope="row">${t(key)}</th>
                  <td class="num">${signed(minor)}</td>
                </tr>`,
            )}
            <tr class="total">
              <th scope="row">${t('balanceClosing')}</th>
              <td class="num"><strong>${m(b.closingMinor)}</strong></td>
            </tr>
          </tbody>
        </table>
        <p class="help">${t('balanceClosingHelp')}</p>
        <p id="balance-held-now">
          ${t('balanceHeldNow', { profiles: m(b.heldNow.profilesMinor), cards: m(b.heldNow.cardsMinor) })}
          <a href="/portal/cards?all=1&amp;sort=balance#consumers">${t('balanceByCustomer')} →</a>
        </p>
        ${csvLink('/portal/api/v1/storedBalance.csv', { from: d.from, to: d.to }, t('balanceCsv'), true)}
      </div>
      <div>
        <h3>${t(OVER_TIME[step])}</h3>
        <div class="chart">
          <canvas id="chart-balance" role="img" aria-label="${t(OVER_TIME[step])}"></canvas>
        </div>
      </div>
    </div>
  </section>`;
}

/** What was held at the end of each step of the chart (its last day, or the period's end). */
export function balanceSteps(b: Balance, steps: readonly { to: string }[]): number[] {
  const byDay = new Map(b.days.map((x) => [x.day, x.closingMinor]));
  return steps.map((s) => byDay.get(s.to) ?? b.closingMinor);
}
