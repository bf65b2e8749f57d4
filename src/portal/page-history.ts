import type { Static } from 'typebox';
import { type Html, html } from './html.js';
import { type PageUser, dateTime } from './layout.js';
import type { PointsMovementSchema } from './schemas.js';
import { basketTranslator } from './strings-baskets.js';
import { codeWord } from './code-words.js';
import { basketHref } from './page-baskets.js';
import { translator } from './strings.js';

type PointsMovement = Static<typeof PointsMovementSchema>;

/** A page of a history the portal shows page by page, with the cursor it was read from ('' on the newest). */
export interface HistoryListing<T> {
  data: T[];
  nextCursor: string | null;
  cursor: string;
}

/** The links of a history shown a page at a time: back to its newest page, on to older movements. */
export function historyNav(
  listing: HistoryListing<unknown>,
  href: (cursor: string | null) => string,
  label: string,
  user: PageUser,
): Html | string {
  const b = basketTranslator(user.lang);
  if (!listing.cursor && listing.nextCursor === null) return '';
  return html`<nav class="actions" aria-label="${label}">
    ${listing.cursor ? html`<a href="${href(null)}">← ${b('newestMovements')}</a>` : ''}
    ${listing.nextCursor === null ? '' : html`<a href="${href(listing.nextCursor)}">${b('olderMovements')} →</a>`}
  </nav>`;
}

/**
 * A points history, newest first, a page at a time: a card's (and its customer's) or a customer's
 * (and the cards they hold); each movement a basket booked opens that basket. `href` links a page
 * of it, `empty` says there is none yet.
 */
export function pointsHistoryTable(
  listing: HistoryListing<PointsMovement>,
  title: string,
  empty: string,
  user: PageUser,
  href: (cursor: string | null) => string,
): Html {
  const t = translator(user.lang);
  const b = basketTranslator(user.lang);
  const when = (iso: string) => dateTime(iso, user.lang, user.merchant.timeZone);
  return html`<h2 id="points-history-title">${title}</h2>
    ${
      listing.data.length === 0
        ? html`<p class="muted empty">${listing.cursor ? b('noOlderMovements') : empty}</p>`
        : html`<div class="table-wrap">
            <table id="points-history" class="stack-on-phone" aria-labelledby="points-history-title">
              <thead>
                <tr>
                  <th>${t('time')}</th>
                  <th>${t('kind')}</th>
                  <th class="num">${t('points')}</th>
                  <th>${b('basketId')}</th>
                </tr>
              </thead>
              <tbody>
                ${listing.data.map(
                  (p) =>
                    html`<tr>
                      <td data-label="${t('time')}">${when(p.createdAt)}</td>
                      <td data-label="${t('kind')}">
                        ${p.kind === 'move_in' && p.linkedCard ? b('movedFromCard').replace('{card}', p.linkedCard) : codeWord(user.lang, p.kind)}
                      </td>
                      <td class="num phone-first" data-label="${t('points')}">${p.points}</td>
                      ${
                        p.basketId && p.trackingUnitId
                          ? html`<td class="phone-wide" data-label="${b('basketId')}">
                              <a
                                href="${basketHref({ trackingUnitId: p.trackingUnitId, basketId: p.basketId })}"
                                >${p.basketId}</a
                              >
                            </td>`
                          : html`<td class="blank"></td>`
                      }
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${historyNav(listing, href, title, user)}`;
}
