import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import { profileEmailPart } from './page-profile-email.js';
import { linkCardForm, profileDetailsForm } from './page-enrol.js';
import { enrolTranslator } from './strings-enrol.js';
import { type PageUser, badge, dateTime, money } from './layout.js';
import type { CardSchema, ProfileSchema } from './schemas.js';
import { basketTotal } from './page-baskets.js';
import { basketTranslator } from './strings-baskets.js';
import { codeWord } from './code-words.js';
import { translator } from './strings.js';
import { type HistoryListing, historyNav, pointsHistoryTable } from './page-history.js';
import { campaignUsesTable } from './page-customer-uses.js';

type Card = Static<typeof CardSchema>;
type Profile = Static<typeof ProfileSchema>;
type Movement = Card['balanceHistory'][number];

const when = (user: PageUser, iso: string | null) => dateTime(iso, user.lang, user.merchant.timeZone);
const CHANNEL: Record<Movement['channel'], { en: string; de: string }> = {
  till: { en: 'Till', de: 'Kasse' },
  checkout: { en: 'Checkout (app or web shop)', de: 'Checkout (App oder Webshop)' },
  portal: { en: 'Portal', de: 'Portal' },
  operator: { en: 'Operator', de: 'Betreiber' },
};

/**
 * The form that cuts a page's histories at a day (`until`), for the movements of a month a customer
 * asks about; empty shows them up to now. `hidden` are the page's own fields (the card's id). Left
 * out while every history it would cut fits its first page.
 */
export function historyUntilForm(
  action: string,
  hidden: Record<string, string>,
  until: string,
  user: PageUser,
  histories: HistoryListing<unknown>[],
): Html | string {
  const b = basketTranslator(user.lang);
  if (!until && histories.every((h) => !h.cursor && h.nextCursor === null)) return '';
  return html`<form class="inline card" method="get" action="${action}" id="history-until">
    ${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <label
      >${b('historyUntil')}
      <input type="date" name="until" value="${until}" aria-describedby="history-until-help"
    /></label>
    <button type="submit">${b('showHistory')}</button>
    <p class="help" id="history-until-help">${b('historyUntilHelp')}</p>
  </form>`;
}

/**
 * One balance history, whichever interface booked each movement, newest first, a page at a time;
 * `href` links the page of a cursor.
 */
export function balanceHistoryTable(
  listing: HistoryListing<Movement>,
  currency: string,
  user: PageUser,
  href: (cursor: string | null) => string,
): Html {
  const t = translator(user.lang);
  const b = basketTranslator(user.lang);
  const m = (minor: number) => money(minor, currency, user.lang);
  const movements = listing.data;
  return html`<h2 id="balance-history-title">${b('balanceHistory')}</h2>
    ${
      movements.length === 0
        ? html`<p class="muted empty">${b(listing.cursor ? 'noOlderMovements' : 'noMovements')}</p>`
        : html`<div class="table-wrap">
            <table id="balance-history" class="stack-on-phone">
              <thead>
                <tr>
                  <th>${t('time')}</th>
                  <th>${b('movement')}</th>
                  <th>${b('via')}</th>
                  <th class="num">${b('amount')}</th>
                  <th class="num">${b('balanceAfter')}</th>
                  <th>${t('reason')}</th>
                </tr>
              </thead>
              <tbody>
                ${movements.map(
                  (x) =>
                    html`<tr>
                      <td data-label="${t('time')}">${when(user, x.createdAt)}</td>
                      <td data-label="${b('movement')}">${codeWord(user.lang, x.kind)}</td>
                      <td data-label="${b('via')}">
                        ${CHANNEL[x.channel][user.lang]}${x.terminal ? html` · ${x.terminal}` : ''}
                      </td>
                      <td class="num phone-first" data-label="${b('amount')}">${m(x.amountMinor)}</td>
                      <td class="num" data-label="${b('balanceAfter')}">${m(x.balanceAfterMinor)}</td>
                      ${x.reason ? html`<td data-label="${t('reason')}">${x.reason}</td>` : html`<td class="blank"></td>`}
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${historyNav(listing, href, b('balanceHistory'), user)}`;
}

/** The card's holder (a link to the profile), its kind, purchases, visits and lifetime spend. */
export function cardCustomerFacts(card: Card, user: PageUser): Html {
  const t = translator(user.lang);
  const b = basketTranslator(user.lang);
  const m = (minor: number) => money(minor, card.currency, user.lang);
  const holder = card.holder;
  return html`<div class="card">
      <dl>
        <dt>${t('kind')}</dt>
        <dd>${card.tokenType === 'gift' ? badge('scheduled', b('giftCard')) : b('customerCard')}</dd>
        <dt>${b('holder')}</dt>
        <dd id="card-holder">
          ${
            holder
              ? html`<a href="/portal/profiles/${holder.profileId}"
                  >${holder.fullName ?? holder.email ?? `#${holder.profileId}`}</a
                >`
              : card.state === 'registered'
                ? html`${b('noHolder')}
                    <a
                      id="enrol-holder"
                      href="/portal/profiles/new?tokenId=${encodeURIComponent(card.tokenId)}"
                      >${enrolTranslator(user.lang)('enrolWithCard')} →</a
                    >`
                : b('noHolder')
          }
        </dd>
        <dt>${b('purchases')}</dt>
        <dd id="card-purchases">${card.purchases.purchases}</dd>
        <dt>${b('visits')}</dt>
        <dd>${card.purchases.visits}</dd>
        <dt>${b('lifetimeSpend')}</dt>
        <dd>${m(card.purchases.lifetimeSpendMinor)}</dd>
      </dl>
    </div>
    <h2>${b('purchases')}</h2>
    ${
      card.recentBaskets.length === 0 && card.recentOrders.length === 0
        ? html`<p class="muted empty">${b('noPurchases')}</p>`
        : html`<div class="table-wrap">
              <table id="card-baskets" class="stack-on-phone">
                <thead>
                  <tr>
                    <th>${t('time')}</th>
                    <th>${b('billNumber')}</th>
                    <th>${b('tillOrShop')}</th>
                    <th class="num">${t('total')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${purchaseRows(card)
                    .sort((x, y) => y.at.localeCompare(x.at))
                    .map((row) =>
                      row.basket
                        ? basketRow(row.basket, user)
                        : row.order
                          ? orderRow(row.order, card, user)
                          : '',
                    )}
                </tbody>
              </table>
            </div>
            <p>
              <a href="/portal/baskets?card=${encodeURIComponent(card.tokenId)}">${b('allPurchases')} →</a>
              ${
                card.holder && card.recentOrders.length > 0
                  ? html`<br /><a
                        id="card-all-orders"
                        href="/portal/orders?profileId=${card.holder.profileId}"
                        >${b('allOrders')} →</a
                      >`
                  : ''
              }
            </p>`
    }`;
}

type CardBasket = Card['recentBaskets'][number];
type CardOrder = Card['recentOrders'][number];

/** The card's newest baskets and the newest orders paid from its balance, each with its time. */
function purchaseRows(card: Card): { at: string; basket?: CardBasket; order?: CardOrder }[] {
  return [
    ...card.recentBaskets.map((basket) => ({ at: basket.timestamp, basket })),
    ...card.recentOrders.map((order) => ({ at: order.createdAt, order })),
  ];
}

function basketRow(x: CardBasket, user: PageUser): Html {
  const t = translator(user.lang);
  const b = basketTranslator(user.lang);
  return html`<tr>
    <td data-label="${t('time')}">
      <a href="/portal/baskets/${encodeURIComponent(x.trackingUnitId)}/${encodeURIComponent(x.basketId)}"
        >${when(user, x.timestamp)}</a
      >
    </td>
    <td data-label="${b('billNumber')}">${x.billNumber ?? x.basketId}</td>
    <td data-label="${b('tillOrShop')}">
      ${x.instanceName ?? x.trackingUnitId}<br /><small class="muted"
        >${x.outletName ?? `#${x.outletId}`}</small
      >
    </td>
    <td class="num phone-first" data-label="${t('total')}">${basketTotal(x, user)}</td>
  </tr>`;
}

/**
 * A checkout order paid from the balance: its time linked to the order's page, the shop's own
 * number of it (as the order list shows it; on a phone cut to its column, the whole number on
 * hover, for a shop's UUID would make the row six lines high), its shop, and what it charged
 * (less any refund).
 */
function orderRow(o: CardOrder, card: Card, user: PageUser): Html {
  const t = translator(user.lang);
  const b = basketTranslator(user.lang);
  const m = (minor: number) => money(minor, card.currency, user.lang);
  return html`<tr class="card-order">
    <td data-label="${t('time')}">
      <a href="/portal/orders/${encodeURIComponent(o.orderId)}">${when(user, o.createdAt)}</a>
    </td>
    <td data-label="${b('billNumber')}">
      <span class="short-key" title="${o.basketId}">${o.basketId}</span>
    </td>
    <td data-label="${b('tillOrShop')}">
      ${o.shop ?? '—'}<br /><small class="muted" title="${b('onlineOrderPaid')}">${b('onlineOrder')}</small>
    </td>
    <td class="num phone-first" data-label="${t('total')}">
      ${m(o.chargedMinor)}${o.refundedMinor > 0 ? html`<br /><small class="muted">${b('refundedAmount')} ${m(o.refundedMinor)}</small>` : ''}
    </td>
  </tr>`;
}

/** A customer: name, e-mail, cards, points, and the histories of the balance and of the points. */
export function profileBody(
  p: Profile,
  balance: HistoryListing<Movement>,
  points: HistoryListing<Profile['pointsHistory'][number]>,
  until: string,
  user: PageUser,
): Html {
  const t = translator(user.lang);
  const b = basketTranslator(user.lang);
  return html`<div class="kpis">
      <div class="kpi">
        <div class="label">${b('profile')}</div>
        <div class="value" id="profile-name">${p.fullName ?? p.email ?? `#${p.profileId}`}</div>
      </div>
      <div class="kpi">
        <div class="label">${b('balance')}</div>
        <div class="value" id="profile-balance">${money(p.balanceMinor, p.currency, user.lang)}</div>
      </div>
      <div class="kpi">
        <div class="label">${b('points')}</div>
        <div class="value">${p.points}</div>
      </div>
    </div>
    <div class="card">
      <dl>
        <dt>${t('email')}</dt>
        <dd>${p.email ?? '—'}</dd>
        <dt>${b('profileCards')}</dt>
        <dd>
          ${p.cards.length === 0 ? b('noCards') : ''}
          <ul id="profile-cards">
            ${p.cards.map(
              (c) =>
                html`<li>
                  <a href="/portal/cards?tokenId=${encodeURIComponent(c.tokenId)}">${c.tokenId}</a>
                  · ${c.tokenType === 'gift' ? b('giftCard') : b('customerCard')} ·
                  ${codeWord(user.lang, c.state)}
                </li>`,
            )}
          </ul>
        </dd>
      </dl>
    </div>
    ${profileDetailsForm(p, user)} ${linkCardForm(p, user)} ${profileEmailPart(p, user)}
    ${tiersTable(p, user)} ${campaignUsesTable(p, user)}
    ${historyUntilForm(`/portal/profiles/${p.profileId}`, {}, until, user, [balance, points])}
    ${balanceHistoryTable(balance, p.currency, user, profileHistoryLink(p.profileId, until, 'balance'))}
    ${pointsHistoryTable(
      points,
      b('pointsHistory'),
      b('noPointsMovements'),
      user,
      profileHistoryLink(p.profileId, until, 'points'),
    )}`;
}

/** The link to the page of one of a customer's histories at `cursor` (its newest page when null). */
function profileHistoryLink(profileId: number, until: string, history: 'balance' | 'points') {
  return (cursor: string | null) => {
    const q = new URLSearchParams();
    if (until) q.set('until', until);
    if (cursor !== null) q.set(`${history}Cursor`, cursor);
    const text = q.toString();
    return `/portal/profiles/${profileId}${text ? `?${text}` : ''}#${history}-history-title`;
  };
}

/** The customer's standing in each scheme with status tiers: tier, measure in the period, what is missing. */
function tiersTable(p: Profile, user: PageUser): Html | string {
  if (p.tiers.length === 0) return '';
  const b = basketTranslator(user.lang);
  const amount = (t: Profile['tiers'][number], n: number) =>
    t.measure === 'spend' ? money(n, p.currency, user.lang) : String(n);
  const period = (t: Profile['tiers'][number]) =>
    t.period.rollingDays !== undefined
      ? b('tierPeriodDays').replace('{n}', String(t.period.rollingDays))
      : b(
          t.period.calendar === 'year'
            ? 'tierPeriodYear'
            : t.period.calendar === 'quarter'
              ? 'tierPeriodQuarter'
              : 'tierPeriodMonth',
        );
  return html`<div class="card">
    <h2>${b('tiers')}</h2>
    <div class="table-wrap">
      <table id="profile-tiers" class="stack-on-phone">
        <thead>
          <tr>
            <th>${b('tierScheme')}</th>
            <th>${b('tier')}</th>
            <th class="num">${b('tierInPeriod')}</th>
            <th>${b('tierNext')}</th>
          </tr>
        </thead>
        <tbody>
          ${p.tiers.map(
            (t) =>
              html`<tr>
                <td data-label="${b('tierScheme')}">${t.schemeName}</td>
                <td class="phone-first" data-label="${b('tier')}">
                  ${t.tier === null ? b('tierNone') : html`<strong>${t.tier.name}</strong> · ×${t.tier.multiplier.toLocaleString(user.lang === 'de' ? 'de-DE' : 'en-GB')}`}
                </td>
                <td class="num" data-label="${b('tierInPeriod')}">
                  ${amount(t, t.value)}<br /><small class="muted">${period(t)}</small>
                </td>
                <td data-label="${b('tierNext')}">
                  ${
                    t.next === null
                      ? b('tierTop')
                      : b('tierMissing')
                          .replace('{missing}', amount(t, t.next.missing))
                          .replace('{name}', t.next.name)
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </div>`;
}
