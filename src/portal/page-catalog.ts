import type { Static } from 'typebox';
import type { ArticleRowSchema, CatalogSchema } from './catalog.routes.js';
import { type Html, html } from './html.js';
import { type PageUser, badge, majorMoney } from './layout.js';
import { basketTranslator } from './strings-baskets.js';
import { translator } from './strings.js';

type Catalog = Static<typeof CatalogSchema>;
type Article = Static<typeof ArticleRowSchema>;

/** One page of a sortiment's articles, as the portal's article search answers it. */
export interface CatalogArticles {
  data: Article[];
  hasMore: boolean;
  nextCursor: string | null;
}

export function catalogBody(
  catalog: Catalog,
  page: CatalogArticles | null,
  query: { sortimentId: string; search: string; cursor: string },
  user: PageUser,
): Html {
  const t = translator(user.lang);
  const b = basketTranslator(user.lang);
  const articles = page?.data ?? null;
  const first = new URLSearchParams({ sortimentId: query.sortimentId, search: query.search });
  const next = new URLSearchParams(first);
  if (page?.nextCursor) next.set('cursor', page.nextCursor);
  return html` <h2>${t('brands')}</h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th>${t('brands')}</th>
            <th>${t('outlet')}</th>
          </tr>
        </thead>
        <tbody>
          ${catalog.brands.map(
            (b) =>
              html`<tr>
                <td>${b.brandName}</td>
                <td>${b.outlets.map((o) => html`${o.name} <small class="muted">#${o.id}</small><br />`)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <h2>${t('sortiment')}</h2>
    ${
      catalog.sortiments.length === 0
        ? html`<p class="muted empty">${t('emptySortiments')}</p>`
        : html`<form class="inline card" method="get" action="/portal/catalog" role="search">
            <label
              >${t('sortiment')}
              <select name="sortimentId">
                ${catalog.sortiments.map(
                  (s) =>
                    html`<option value="${s.id}" ${String(s.id) === query.sortimentId ? html`selected` : ''}>
                      ${s.name ?? s.identifier} (${s.articles})
                    </option>`,
                )}
              </select></label
            >
            <label
              >${t('searchArticles')} <input type="search" name="search" value="${query.search}"
            /></label>
            <button type="submit">${t('search')}</button>
          </form>`
    }
    ${
      articles === null
        ? ''
        : articles.length === 0
          ? html`<p class="muted empty">${t('emptyArticles')}</p>`
          : html`<div class="table-wrap">
                <table id="articles" class="stack-on-phone">
                  <thead>
                    <tr>
                      <th>PLU</th>
                      <th>${t('name')}</th>
                      <th>${t('group')}</th>
                      <th class="num">${t('price')}</th>
                      <th>${t('allergens')}</th>
                      <th>${t('state')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${articles.map(
                      (a) =>
                        html`<tr>
                          <td data-label="PLU">${a.plu}</td>
                          <td class="phone-wide" data-label="${t('name')}">${a.name}</td>
                          <td data-label="${t('group')}">${a.groupName ?? a.groupId ?? ''}</td>
                          <td class="num phone-first" data-label="${t('price')}">
                            ${a.prices.map((p) => html`${majorMoney(p.value, p.currency, user.lang)}<br />`)}
                          </td>
                          ${
                            a.allergens.length > 0
                              ? html`<td data-label="${t('allergens')}">${a.allergens.join(', ')}</td>`
                              : html`<td class="blank"></td>`
                          }
                          ${a.soldOut ? html`<td>${badge('no', t('soldOut'))}</td>` : html`<td class="blank"></td>`}
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
              <nav class="pager" aria-label="${t('sortiment')}">
                ${query.cursor ? html`<a href="/portal/catalog?${first.toString()}">${b('firstPage')}</a>` : ''}
                ${page?.hasMore ? html`<a rel="next" href="/portal/catalog?${next.toString()}">${b('nextPage')} →</a>` : ''}
              </nav>`
    }`;
}
