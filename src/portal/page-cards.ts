import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import { type PageUser, dateTime, money } from './layout.js';
import type { CardSchema } from './schemas.js';
import { balanceHistoryTable, cardCustomerFacts, historyUntilForm } from './page-customers.js';
import { codeWord } from './code-words.js';
import { csvLink } from './page-search.js';
import { translator } from './strings.js';
import { type HistoryListing, pointsHistoryTable } from './page-history.js';
import { enrolTranslator } from './strings-enrol.js';

type Card = Static<typeof CardSchema>;
type PointsMovement = Card['pointsHistory'][number];

/** A card to show, with the pages of its two histories the page's query asks for. */
export interface ShownCard {
  card: Card;
  balance: HistoryListing<Card['balanceHistory'][number]>;
  points: HistoryListing<PointsMovement>;
  /** The last day the histories show (YYYY-MM-DD); '' for up to now. */
  until: string;
}

const when = (user: PageUser, iso: string | null) => dateTime(iso, user.lang, user.merchant.timeZone);

export interface ConsumerRow {
  profileId: number;
  fullName: string | null;
  email: string | null;
  balanceMinor: number;
  currency: string;
  cards: string[];
}

/** The consumers a search found, or all of them, 50 a page: the page shown and where the next starts. */
export interface ConsumerList {
  q: string;
  all: boolean;
  /** By id (oldest first) or by balance (highest first). */
  sort: 'id' | 'balance';
  found: ConsumerRow[] | null;
  cursor: string | null;
  nextCursor: string | null;
}

/** The link to a page of the consumer list (its first when the cursor is null). */
function consumersHref(list: ConsumerList, cursor: string | null, sort = list.sort): string {
  const q = new URLSearchParams(list.all ? { all: '1' } : { q: list.q });
  if (sort === 'balance') q.set('sort', 'balance');
  if (cursor !== null) q.set('consumersCursor', cursor);
  return `/portal/cards?${q.toString()}#consumers`;
}

/** The enrolment form's link for a search that found nobody: an address as the address, else the name. */
function enrolQuery(q: string): string {
  return new URLSearchParams(q.includes('@') ? { email: q } : { fullName: q }).toString();
}

/** The card page: find a card by id or a consumer by name or e-mail; a card's figures and history. */
export function cardBody(
  shown: ShownCard | null,
  tokenId: string,
  user: PageUser,
  notFound: boolean,
  consumers: ConsumerList = { q: '', all: false, sort: 'id', found: null, cursor: null, nextCursor: null },
): Html {
  const t = translator(user.lang);
  const e = enrolTranslator(user.lang);
  const search = html`<div class="grid">
      <form class="inline card" method="get" action="/portal/cards" role="search">
        <label>${t('cardId')} <input name="tokenId" value="${tokenId}" required autocomplete="off" /></label>
        <button type="submit">${t('findCard')}</button>
      </form>
      <form class="inline card" method="get" action="/portal/cards" role="search">
        <label
          >${t('consumer')} <input name="q" value="${consumers.q}" required minlength="2" autocomplete="off"
        /></label>
        <button type="submit">${t('search')}</button>
      </form>
    </div>
    <p class="actions">
      <a id="new-customer" href="/portal/profiles/new">+ ${e('newCustomer')}</a>
      <a id="all-customers" href="/portal/cards?all=1#consumers">${e('allCustomers')}</a>
    </p>
    ${consumers.all ? html`<h2 id="consumers-title">${e('allCustomers')}</h2>` : ''}
    ${
      consumers.found === null
        ? ''
        : consumers.found.length === 0
          ? consumers.cursor !== null
            ? // A page past the end, or a cursor no longer read: back to the first.
              html`<p class="muted empty">
                <a href="${consumersHref(consumers, null)}">← ${e('firstCustomers')}</a>
              </p>`
            : consumers.all
              ? html`<p class="muted empty">${e('noCustomers')}</p>`
              : html`<p class="muted empty">
                  ${t('emptyConsumers')}
                  <a href="/portal/profiles/new?${enrolQuery(consumers.q)}">${e('enrolFound')} →</a>
                </p>`
          : html`<p class="actions" id="consumers-order">
                ${
                  consumers.sort === 'balance'
                    ? html`<a href="${consumersHref(consumers, null, 'id')}">${e('oldestFirst')}</a>`
                    : html`<a href="${consumersHref(consumers, null, 'balance')}"
                        >${e('highestBalanceFirst')}</a
                      >`
                }
              </p>
              <div class="table-wrap">
                <table id="consumers" class="stack-on-phone">
                  <thead>
                    <tr>
                      <th>${t('name')}</th>
                      <th>${t('email')}</th>
                      <th class="num">${t('balance')}</th>
                      <th>${t('cards')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${consumers.found.map(
                      (c) =>
                        html`<tr>
                          <td data-label="${t('name')}">
                            <a href="/portal/profiles/${c.profileId}"
                              >${c.fullName ?? c.email ?? `#${c.profileId}`}</a
                            >
                          </td>
                          ${
                            c.email
                              ? html`<td class="url phone-wide" data-label="${t('email')}">${c.email}</td>`
                              : html`<td class="blank"></td>`
                          }
                          <td class="num phone-first" data-label="${t('balance')}">
                            ${money(c.balanceMinor, c.currency, user.lang)}
                          </td>
                          <td class="url phone-wide" data-label="${t('cards')}">
                            ${c.cards.map((id) => html`<a href="/portal/cards?tokenId=${encodeURIComponent(id)}">${id}</a> `)}
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
              ${
                consumers.cursor === null && consumers.nextCursor === null
                  ? ''
                  : html`<nav class="actions" aria-label="${e('allCustomers')}">
                      ${consumers.cursor === null ? '' : html`<a href="${consumersHref(consumers, null)}">← ${e('firstCustomers')}</a>`}
                      ${consumers.nextCursor === null ? '' : html`<a href="${consumersHref(consumers, consumers.nextCursor)}">${e('moreCustomers')} →</a>`}
                    </nav>`
              }
              ${csvLink(
                '/portal/api/v1/consumers.csv',
                consumers.all ? {} : { q: consumers.q },
                e(consumers.all ? 'allCustomersCsv' : 'customersCsv'),
                true,
              )}`
    }`;
  if (!shown)
    return html`${search}${
      notFound
        ? html`<p class="form-error" role="alert">${t('cardNotFound')}</p>
            <p>
              <a href="/portal/profiles/new?tokenId=${encodeURIComponent(tokenId)}"
                >${e('enrolWithCard')} →</a
              >
            </p>`
        : ''
    }`;
  const { card } = shown;
  const m = (minor: number) => money(minor, card.currency, user.lang);
  const owner = user.role === 'owner';
  // A locked card offers its unlock, any other its lock.
  const lockAction =
    card.state === 'locked'
      ? ({ action: 'unlock', confirm: 'unlockConfirm', className: '' } as const)
      : ({ action: 'lock', confirm: 'lockConfirm', className: 'danger' } as const);
  const path = `/portal/api/v1/cards/${encodeURIComponent(card.tokenId)}`;
  return html`${search}
    <div class="kpis">
      <div class="kpi">
        <div class="label">${t('card')}</div>
        <div class="value">${card.tokenId}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('state')}</div>
        <div class="value" id="card-state">${codeWord(user.lang, card.state)}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('balance')}</div>
        <div class="value">${m(card.balanceMinor)}</div>
      </div>
      <div class="kpi">
        <div class="label">${t('points')}</div>
        <div class="value">${card.points}</div>
      </div>
    </div>
    ${cardCustomerFacts(card, user)}
    ${
      owner
        ? html`<div class="grid">
            <form
              class="card"
              data-api="POST ${path}/${lockAction.action}"
              data-next="reload"
              data-confirm="${t(lockAction.confirm)}"
            >
              <h2>${t(lockAction.action)}</h2>
              <label for="lock-reason">${t('reasonOptional')}</label>
              <input id="lock-reason" name="reason" maxlength="500" aria-describedby="lock-reason-help" />
              <p class="help" id="lock-reason-help">${t('reasonOptionalHelp')}</p>
              <p class="form-error" role="alert" hidden></p>
              <button type="submit" class="${lockAction.className}">${t(lockAction.action)}</button>
            </form>
            ${
              card.profileId === null
                ? ''
                : html`<form class="card" data-api="POST ${path}/otps" data-next="otp" data-no-body>
                    <h2>${t('otp')}</h2>
                    <p class="muted">${t('otpHelp')}</p>
                    <p class="form-ok" role="status" id="otp-result" hidden></p>
                    <p class="form-error" role="alert" hidden></p>
                    <button type="submit">${t('otp')}</button>
                  </form>`
            }
            <form
              class="card"
              data-api="POST ${path}/corrections"
              data-next="reload"
              data-error-request-id-reused="${t('correctionReused')}"
            >
              <h2>${t('correct')}</h2>
              <input type="hidden" name="requestId" value="${randomUUID()}" />
              <label
                >${t('amount')}
                <input
                  name="amount"
                  required
                  pattern="-?[0-9]+([.,][0-9]{1,4})?"
                  inputmode="decimal"
                  data-type="decimal"
              /></label>
              <label>${t('reason')} <input name="reason" required minlength="3" maxlength="500" /></label>
              <p class="form-error" role="alert" hidden></p>
              <button type="submit">${t('correct')}</button>
            </form>
          </div>`
        : ''
    }
    ${
      card.locks.length === 0
        ? ''
        : html`<h2 id="locks-title">${t('locks')}</h2>
            <div class="table-wrap">
              <table id="card-locks" class="stack-on-phone" aria-labelledby="locks-title">
                <thead>
                  <tr>
                    <th>${t('when')}</th>
                    <th>${t('action')}</th>
                    <th>${t('who')}</th>
                    <th>${t('reason')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${card.locks.map(
                    (l) =>
                      html`<tr>
                        <td data-label="${t('when')}">${when(user, l.at)}</td>
                        <td class="phone-first" data-label="${t('action')}">
                          ${t(l.action === 'lock' ? 'lockedAction' : 'unlockedAction')}
                        </td>
                        <td class="phone-wide" data-label="${t('who')}">
                          ${l.by ?? `${t('till')} ${l.trackingUnitId ?? ''}`}
                        </td>
                        <td class="phone-wide" data-label="${t('reason')}">${l.reason ?? '—'}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
    }
    ${
      card.otps.length === 0
        ? ''
        : html`<h2 id="otps-title">${t('otpsIssued')}</h2>
            <div class="table-wrap">
              <table id="card-otps" class="stack-on-phone" aria-labelledby="otps-title">
                <thead>
                  <tr>
                    <th>${t('when')}</th>
                    <th>${t('who')}</th>
                    <th>${t('validUntil')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${card.otps.map(
                    (o) =>
                      html`<tr>
                        <td data-label="${t('when')}">${when(user, o.issuedAt)}</td>
                        <td class="phone-wide" data-label="${t('who')}">${o.by}</td>
                        <td class="phone-first" data-label="${t('validUntil')}">
                          ${when(user, o.expiresAt)}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
    }
    ${historyUntilForm('/portal/cards', { tokenId: card.tokenId }, shown.until, user, [shown.balance, shown.points])}
    ${balanceHistoryTable(
      shown.balance,
      card.currency,
      user,
      historyLink(card.tokenId, shown.until, 'balanceCursor', 'balance-history-title'),
    )}
    ${pointsHistoryTable(
      shown.points,
      `${t('history')} · ${t('points')}`,
      t('emptyCardPoints'),
      user,
      historyLink(card.tokenId, shown.until, 'pointsCursor', 'points-history-title'),
    )}`;
}

/** The link to the page of a card's history of `cursor` (its newest page when null). */
function historyLink(tokenId: string, until: string, param: string, anchor: string) {
  return (cursor: string | null) => {
    const q = new URLSearchParams({ tokenId });
    if (until) q.set('until', until);
    if (cursor !== null) q.set(param, cursor);
    return `/portal/cards?${q.toString()}#${anchor}`;
  };
}
