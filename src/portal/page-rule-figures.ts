import { type Html, html, jsonBlock } from './html.js';
import { type PageUser, dayText, money, numberFormat } from './layout.js';
import { translatorOf } from './page-campaign-extras.js';
import { daysBetween, shortDayText } from './step-labels.js';

/**
 * A campaign's and a loyalty scheme's figures on their pages (docs/decisions.md, "A campaign's
 * figures count the online orders"): totals, a chart (Chart.js) and the same as a table.
 */

export interface CampaignFigures {
  /** The range's first and last day (YYYY-MM-DD); `days` holds those with a basket. */
  from: string;
  to: string;
  baskets: number;
  /** Online orders the campaign gave a reward. */
  orders: number;
  uses: number;
  costMinor: number;
  days: { day: string; baskets: number; orders: number; uses: number; costMinor: number }[];
}

export interface SchemeFigures {
  from: string;
  to: string;
  baskets: number;
  pointsEarned: number;
  pointsRedeemed: number;
  costMinor: number;
  days: { day: string; baskets: number; pointsEarned: number; pointsRedeemed: number; costMinor: number }[];
}

/** Uses, cost and baskets over the last 30 days: totals, a chart (Chart.js) and the same as a table. */
export function figuresSection(
  figures: CampaignFigures | SchemeFigures,
  user: PageUser,
  scale: number,
): Html {
  const c = translatorOf(user);
  const { lang } = user;
  const { currency } = user.merchant;
  const campaign = 'uses' in figures;
  const n = (x: number) => numberFormat(lang, { maximumFractionDigits: 0 }).format(x);
  // The online orders beside the baskets once the campaign gave one in the range.
  const orders = campaign && figures.orders > 0;
  const totals = campaign
    ? [
        [c('basketsRewarded'), n(figures.baskets)],
        ...(orders ? [[c('ordersRewarded'), n(figures.orders)]] : []),
        [c('uses'), n(figures.uses)],
        [c('cost'), money(figures.costMinor, currency, lang)],
      ]
    : [
        [c('basketsRewarded'), n(figures.baskets)],
        [c('pointsEarned'), n(figures.pointsEarned)],
        [c('pointsRedeemed'), n(figures.pointsRedeemed)],
        [c('cost'), money(figures.costMinor, currency, lang)],
      ];
  // The chart has a bar for every day of the range, a day without baskets at zero, so that a gap
  // shows as one; the table below lists the days with baskets.
  const byDay = new Map<string, (typeof figures.days)[number]>(figures.days.map((d) => [d.day, d]));
  const everyDay = daysBetween(figures.from, figures.to);
  const chart = {
    kind: campaign ? 'campaign' : 'scheme',
    locale: lang === 'de' ? 'de-DE' : 'en-GB',
    currency,
    days: everyDay.map((day) => shortDayText(day, lang)),
    labels: campaign
      ? { baskets: c(orders ? 'purchasesRewarded' : 'basketsRewarded'), second: `${c('cost')} (${currency})` }
      : { baskets: c('basketsRewarded'), second: c('pointsEarned') },
    baskets: everyDay.map((day) => {
      const d = byDay.get(day);
      return d === undefined ? 0 : d.baskets + ('orders' in d ? d.orders : 0);
    }),
    second: everyDay.map((day) => {
      const d = byDay.get(day);
      if (d === undefined) return 0;
      return 'uses' in d ? d.costMinor / scale : d.pointsEarned;
    }),
  };
  return html`<section class="card" aria-labelledby="fig-title">
    <h2 id="fig-title">${c('figures')}</h2>
    <dl class="totals">
      ${totals.map(
        ([k, v]) =>
          html`<div>
            <dt>${k}</dt>
            <dd>${v}</dd>
          </div>`,
      )}
    </dl>
    ${campaign ? html`<p class="muted">${c('usesHelp')} ${c('costHelp')}</p>` : ''}
    ${
      figures.days.length === 0
        ? html`<p class="muted">${c('noFigures')} <a href="#dry-last-title">${c('noFiguresWhy')}</a></p>`
        : html`<div class="chart">
              <canvas id="chart-rule" aria-label="${c('figures')}" role="img"></canvas>
            </div>
            ${jsonBlock('rule-figures', chart)}
            <div class="table-wrap">
              <table id="rule-days" class="stack-on-phone">
                <thead>
                  <tr>
                    <th>${c('day')}</th>
                    <th class="num">${c('basketsRewarded')}</th>
                    ${orders ? html`<th class="num">${c('ordersRewarded')}</th>` : ''}
                    ${
                      campaign
                        ? html`<th class="num">${c('uses')}</th>
                            <th class="num">${c('cost')}</th>`
                        : html`<th class="num">${c('pointsEarned')}</th>
                            <th class="num">${c('pointsRedeemed')}</th>
                            <th class="num">${c('cost')}</th>`
                    }
                  </tr>
                </thead>
                <tbody>
                  ${figures.days.map(
                    (d) =>
                      html`<tr>
                        <td data-label="${c('day')}">${dayText(d.day, lang)}</td>
                        <td class="num" data-label="${c('basketsRewarded')}">${d.baskets}</td>
                        ${
                          orders && 'orders' in d
                            ? html`<td class="num" data-label="${c('ordersRewarded')}">${d.orders}</td>`
                            : ''
                        }
                        ${
                          'uses' in d
                            ? html`<td class="num" data-label="${c('uses')}">${d.uses}</td>
                                <td class="num phone-first" data-label="${c('cost')}">
                                  ${money(d.costMinor, currency, lang)}
                                </td>`
                            : html`<td class="num phone-first" data-label="${c('pointsEarned')}">
                                  ${d.pointsEarned}
                                </td>
                                <td class="num" data-label="${c('pointsRedeemed')}">${d.pointsRedeemed}</td>
                                <td class="num" data-label="${c('cost')}">
                                  ${money(d.costMinor, currency, lang)}
                                </td>`
                        }
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
    }
  </section>`;
}
