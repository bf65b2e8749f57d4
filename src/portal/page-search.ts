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

/**
 * The link to a list's CSV of everything found, with the filters as the search read them (its days
 * the merchant's), the paging left out; shown beside rows found only.
 */
export function csvLink(path: string, filters: Record<string, unknown>, text: string, found: boolean): Html {
  if (!found) return html``;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) {
    if (v !== undefined && v !== null && k !== 'limit' && k !== 'cursor') q.set(k, String(v));
  }
  return html`<p><a class="csv" href="${path}${q.size > 0 ? `?${q}` : ''}" download>${text}</a></p>`;
}
