import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import { type PageUser, badge, dateTime, money } from './layout.js';
import type { BasketDetailSchema, BasketListingSchema, TerminalSchema } from './schemas.js';
import { translator } from './strings.js';

type Terminal = Static<typeof TerminalSchema>;
type Basket = Static<typeof BasketListingSchema>;
type BasketDetail = Static<typeof BasketDetailSchema>;

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
    <table>
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
            <td><strong>${u.instanceName}</strong><br /><small class="muted">${u.trackingUnitId}</small></td>
            <td>${u.outletName ?? `#${u.outletId}`}</td>
            <td>${u.devKeyName}</td>
            <td>${u.lastSeen ? when(user, u.lastSeen) : t('never')}</td>
            <td>${u.activated ? badge('yes', t('active')) : badge('no', t('inactive'))}</td>
            <td>${change}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

export function basketSearchBody(
  baskets: Basket[],
  user: PageUser,
  query: Record<string, string>,
  outlets: { id: number; name: string }[],
  terminals: Terminal[],
): Html {
  const t = translator(user.lang);
  return html` <form class="inline card" method="get" action="/portal/baskets">
      <label>${t('from')} <input type="date" name="from" value="${query.from ?? ''}" /></label>
      <label>${t('to')} <input type="date" name="to" value="${query.to ?? ''}" /></label>
      <label
        >${t('outlet')}
        <select name="outletId">
          <option value="">${t('allOutlets')}</option>
          ${outlets.map((o) => html`<option value="${o.id}" ${String(o.id) === query.outletId ? html`selected` : ''}>${o.name}</option>`)}
        </select></label
      >
      <label
        >${t('terminal')}
        <select name="trackingUnitId">
          <option value="">—</option>
          ${terminals.map((u) => html`<option value="${u.trackingUnitId}" ${u.trackingUnitId === query.trackingUnitId ? html`selected` : ''}>${u.instanceName}</option>`)}
        </select></label
      >
      <label>${t('card')} <input name="card" value="${query.card ?? ''}" autocomplete="off" /></label>
      <button type="submit">${t('search')}</button>
    </form>
    ${
      baskets.length === 0
        ? html`<p class="muted empty">${t('emptyBaskets')}</p>`
        : html`<div class="table-wrap">
            <table id="basket-list">
              <thead>
                <tr>
                  <th>${t('time')}</th>
                  <th>${t('basket')}</th>
                  <th>${t('terminal')}</th>
                  <th>${t('card')}</th>
                  <th class="num">${t('total')}</th>
                  <th class="num">${t('rewards')}</th>
                  <th>${t('state')}</th>
                </tr>
              </thead>
              <tbody>
                ${baskets.map(
                  (b) =>
                    html`<tr>
                      <td>${when(user, b.timestamp)}</td>
                      <td>
                        <a
                          href="/portal/baskets/${encodeURIComponent(b.trackingUnitId)}/${encodeURIComponent(b.basketId)}"
                          >${b.basketId}</a
                        >
                      </td>
                      <td>
                        ${terminals.find((u) => u.trackingUnitId === b.trackingUnitId)?.instanceName ?? b.trackingUnitId}
                      </td>
                      <td>${b.card ?? ''}</td>
                      <td class="num">
                        ${b.totalValueMinor === null ? '' : money(b.totalValueMinor, b.currency, user.lang)}
                      </td>
                      <td class="num">${money(b.rewardMinor, b.currency, user.lang)}</td>
                      <td>${b.granted ? badge('yes', t('granted')) : badge('no', t('notGranted'))}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }`;
}

export function basketDetailBody(b: BasketDetail, user: PageUser): Html {
  const t = translator(user.lang);
  const m = (minor: number) => money(minor, b.currency, user.lang);
  return html` <p><a href="/portal/baskets">← ${t('back')}</a></p>
    <div class="kpis">
      <div class="kpi">
        <div class="label">${t('time')}</div>
        <div class="value">${when(user, b.timestamp)}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('total')}</div>
        <div class="value">${b.totalValueMinor === null ? '—' : m(b.totalValueMinor)}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('rewards')}</div>
        <div class="value">${m(b.rewardMinor)}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('state')}</div>
        <div class="value">${b.granted ? badge('yes', t('granted')) : badge('no', t('notGranted'))}</div>
      </div>
    </div>
    <div class="card">
      <dl>
        <dt>${t('terminal')}</dt>
        <dd>${b.trackingUnitId}</dd>
        <dt>${t('card')}</dt>
        <dd>
          ${b.card ? html`<a href="/portal/cards?tokenId=${encodeURIComponent(b.card)}">${b.card}</a>` : '—'}
        </dd>
        <dt>${t('receipt')}</dt>
        <dd>${b.receiptUrl ? html`<a href="${b.receiptUrl}">${b.receiptUrl}</a>` : t('noReceipt')}</dd>
      </dl>
    </div>
    <h2>${t('rewards')}</h2>
    ${
      b.rewards.length === 0
        ? html`<p class="muted empty">${t('emptyBasketRewards')}</p>`
        : html`<table id="basket-rewards">
            <thead>
              <tr>
                <th>${t('position')}</th>
                <th>${t('name')}</th>
                <th class="num">${t('reward')}</th>
              </tr>
            </thead>
            <tbody>
              ${b.rewards.map(
                (r) =>
                  html`<tr>
                    <td>${r.positionId}</td>
                    <td>${r.name}</td>
                    <td class="num">${r.valueMajor.toFixed(2)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <h2>${t('loyalty')}</h2>
    ${
      b.loyalty.length === 0
        ? html`<p class="muted empty">${t('emptyBasketPoints')}</p>`
        : html`<table>
            <thead>
              <tr>
                <th>${t('name')}</th>
                <th class="num">${t('from')}</th>
                <th class="num">${t('to')}</th>
              </tr>
            </thead>
            <tbody>
              ${b.loyalty.map(
                (l) =>
                  html`<tr>
                    <td>${l.name}</td>
                    <td class="num">${l.previousPoints}</td>
                    <td class="num">${l.newPoints}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <h2>${t('returns')}</h2>
    ${
      b.returns.length === 0
        ? html`<p class="muted empty">${t('emptyBasketReturns')}</p>`
        : html`<ul>
            ${b.returns.map((r) => html`<li>${r.returnId} · ${when(user, r.createdAt)}</li>`)}
          </ul>`
    }`;
}
