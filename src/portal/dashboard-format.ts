import type { PortalLang } from '../portal-users/portal-user.store.js';
import { type Html, html } from './html.js';
import { numberFormat } from './layout.js';
import type { DashboardTranslate } from './strings-dashboard.js';

/** The dashboard's numbers and changes, shared by its figures, its notices and its orders. */

/** A count or an amount sold (up to three decimals: kilograms) in the user's language. */
export function count(n: number | string, lang: PortalLang): string {
  return numberFormat(lang, { maximumFractionDigits: 3 }).format(n as number);
}

/** The change against the previous period, as text and as a direction for the badge. */
export function change(now: number, before: number, lang: PortalLang, t: DashboardTranslate): Html {
  if (before === 0) return html`<span class="change">${now === 0 ? t('noChange') : t('noComparison')}</span>`;
  if (now === before) return html`<span class="change">±0 %</span>`;
  const ratio = (now - before) / before;
  const text = numberFormat(lang, {
    style: 'percent',
    maximumFractionDigits: 1,
    signDisplay: 'always',
  }).format(ratio);
  return html`<span class="change ${ratio > 0 ? 'up' : 'down'}" title="${t('changeLabel')}"
    >${ratio > 0 ? '▲' : '▼'} ${text}</span
  >`;
}

/** One figure of the dashboard: its label, value, change and what it counts. */
export function kpi(label: string, value: string, help: string, delta: Html | string = ''): Html {
  return html`<div class="kpi">
    <div class="label">${label}</div>
    <div class="value">${value}</div>
    ${delta}
    <div class="help">${help}</div>
  </div>`;
}
