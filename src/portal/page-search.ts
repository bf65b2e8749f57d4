import { type Html, html } from './html.js';
import type { Translate } from './strings.js';

/** A search form's number field and its days (the basket and the order search). */
export function numberAndDays(label: string, query: Record<string, string>, t: Translate): Html {
  return html`<label
      >${label}
      <input type="search" name="number" value="${query.number ?? ''}" autocomplete="off" maxlength="200"
    /></label>
    <label>${t('from')} <input type="date" name="from" value="${query.from ?? ''}" /></label>
    <label>${t('to')} <input type="date" name="to" value="${query.to ?? ''}" /></label>`;
}

/**
 * The pager under a search list: back to the first page when on a later one, and on to the next
 * when more follow, each keeping the search's filters.
 */
export function searchPager(
  path: string,
  label: string,
  query: Record<string, string>,
  filters: readonly string[],
  page: { hasMore: boolean; nextCursor: string | null },
  texts: { first: string; next: string },
): Html {
  const next = new URLSearchParams();
  for (const k of filters) if (query[k]) next.set(k, String(query[k]));
  const first = next.toString();
  if (page.nextCursor) next.set('cursor', page.nextCursor);
  return html`<nav class="pager" aria-label="${label}">
    ${query.cursor ? html`<a href="${path}?${first}">${texts.first}</a>` : ''}
    ${page.hasMore ? html`<a rel="next" href="${path}?${next.toString()}">${texts.next} →</a>` : ''}
  </nav>`;
}
