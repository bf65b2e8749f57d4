import type { AccountView, PurchaseEntry } from '../notifications/consumer-portal.js';
import {
  type Language,
  formatDate,
  formatLocalTime,
  formatMoney,
  itemsText,
} from '../receipts/receipt-text.js';
import { html, page } from './html.js';
import { words } from './me-words.js';

/** What the sign-in page says above its form: a link sent, a link refused, or a wait in minutes. */
export type SignInNotice = 'sent' | 'invalid' | { readonly waitMinutes: number } | null;

export function renderSignIn(lang: Language, notice: SignInNotice): string {
  const w = words[lang];
  const message =
    notice === 'sent'
      ? w.linkSent
      : notice === 'invalid'
        ? w.linkInvalid
        : notice === null
          ? null
          : w.tooManyLinks(notice.waitMinutes);
  const body = html` <h1>${w.signInTitle}</h1>
    ${message ? html`<p class="notice" role="status">${message}</p>` : ''}
    <p>${w.signInIntro}</p>
    <form method="post" action="/me/sign-in">
      <label for="email">${w.email}</label>
      <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" />
      <input type="hidden" name="lang" value="${lang}" />
      <p><button type="submit">${w.sendLink}</button></p>
    </form>`;
  return page(w.signInTitle, lang, body);
}

export interface AccountPage {
  readonly overview: AccountView;
  readonly purchases: { rows: PurchaseEntry[]; hasMore: boolean };
  /** The page of purchases shown. */
  readonly page: number;
  /** The cursor of the page of balance movements shown; undefined for the newest. */
  readonly balanceCursor: string | undefined;
  readonly csrfToken: string;
  readonly preferences: { mail: boolean; push: boolean };
  readonly vapidPublicKey: string;
  readonly saved: boolean;
}

export function renderAccount(lang: Language, a: AccountPage): string {
  const w = words[lang];
  const o = a.overview;
  const money = (minor: number) => formatMoney(minor, o.currency, lang);
  const points =
    o.points.length === 0
      ? html`<p>${w.noPoints}</p>`
      : html`<table>
          <tbody>
            ${o.points.map(
              (p) =>
                html`<tr>
                  <td>${p.schemeName}</td>
                  <td class="num">
                    <strong>${p.points}</strong>${
                      p.nextExpiry
                        ? html`<br /><span class="muted"
                              >${w.expires(p.expiringPoints, formatDate(p.nextExpiry, lang, o.timeZone))}</span
                            >`
                        : ''
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  const tiers = o.tiers.map((t) => {
    const amount = (n: number) => (t.measure === 'spend' ? money(n) : `${n} ${w.pointsUnit}`);
    return html`<p class="tier">
      <strong>${w.tier(t.tier?.name ?? null, t.schemeName)}</strong><br />
      ${amount(t.value)} ${w.tierPeriod(t.period.rollingDays, t.period.calendar)}.
      ${t.next === null ? w.tierTop : w.tierNext(amount(t.next.missing), t.next.name)}
    </p>`;
  });
  const receiptLink = (id: string | null) => (id ? html`<a href="/receipts/${id}">${w.receipt}</a>` : '');
  const movements =
    o.movements.data.length === 0
      ? html`<p>${a.balanceCursor === undefined ? w.noMovements : w.noOlderMovements}</p>`
      : html`<table class="movements">
          <tbody>
            ${o.movements.data.map(
              (m) =>
                html`<tr>
                  <td>${formatDate(m.time, lang, o.timeZone)}</td>
                  <td>
                    ${w.purposes[m.purpose]}${m.place ? html` · ${m.place}` : ''}${m.what ? html`<br /><span class="muted">${m.what}</span>` : ''}
                  </td>
                  <td class="num">
                    ${money(m.amountMinor)}<span class="muted after"
                      >${w.balanceAfter(money(m.balanceAfterMinor))}</span
                    >${receiptLink(m.receiptId)}
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  const purchaseNotes = (p: PurchaseEntry) => {
    const m = (minor: number) => formatMoney(minor, p.currency, lang);
    const notes = [
      ...p.points.flatMap((x) => [
        ...(x.earned ? [w.pointsChange(x.earned, x.schemeName)] : []),
        ...(x.redeemed ? [w.pointsChange(-x.redeemed, x.schemeName)] : []),
      ]),
      ...p.returns.map((r) =>
        r.kind === 'refund'
          ? w.refunded(formatDate(r.time, lang, o.timeZone), m(r.toBalanceMinor))
          : [
              `${w.returned(formatDate(r.time, lang, o.timeZone), itemsText(r.items, lang))} −${m(r.amountMinor)}`,
              ...r.points.map((x) => w.pointsChange(x.change, x.schemeName)),
            ].join(', '),
      ),
    ];
    return notes.map((n) => html`<br /><span class="muted">${n}</span>`);
  };
  const purchases =
    a.purchases.rows.length === 0
      ? html`<p>${w.noPurchases}</p>`
      : html`<table class="purchases">
          <tbody>
            ${a.purchases.rows.map(
              (p) =>
                html`<tr data-kind="${p.kind}">
                  <td>
                    ${formatLocalTime(p.time, p.timeOffsetMinutes, lang)}<br /><span
                      >${p.kind === 'checkout_order' ? `${w.order} · ` : ''}${p.place ?? ''}</span
                    >${p.cardTokenId ? html`<br /><span class="muted">${w.withCard(p.cardTokenId)}</span>` : ''}${purchaseNotes(p)}
                  </td>
                  <td class="num">
                    ${formatMoney(p.totalMinor, p.currency, lang)}<br />${receiptLink(p.receiptId)}
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  // Each pager keeps the other's place: the purchases' page, the movements' cursor.
  // Each keeps the day both lists end at.
  const href = (purchasesPage: number, cursor: string | null | undefined, anchor: string) => {
    const q = new URLSearchParams();
    if (purchasesPage > 1) q.set('page', String(purchasesPage));
    if (cursor) q.set('balanceCursor', cursor);
    if (o.until) q.set('until', o.until.day);
    const text = q.toString();
    return `/me${text ? `?${text}` : ''}#${anchor}`;
  };
  const movementsPager =
    a.balanceCursor === undefined && !o.movements.hasMore
      ? ''
      : html`<nav aria-label="${w.movements}" class="actions">
          ${
            a.balanceCursor !== undefined
              ? html`<a class="button secondary" href="${href(a.page, null, 'movements')}"
                  >${w.newestMovements}</a
                >`
              : ''
          }${
            o.movements.hasMore
              ? html`<a class="button secondary" href="${href(a.page, o.movements.nextCursor, 'movements')}"
                  >${w.olderMovements}</a
                >`
              : ''
          }
        </nav>`;
  // Both lists cut at a day, offered once either has more than a page.
  const cut =
    a.balanceCursor === undefined &&
    !o.movements.hasMore &&
    o.until === null &&
    a.page === 1 &&
    !a.purchases.hasMore
      ? ''
      : html`<form method="get" action="/me#movements" class="until">
          <label for="until">${w.untilLabel}</label>
          <input type="date" id="until" name="until" value="${o.until?.day ?? ''}" />
          <button type="submit" class="secondary">${w.show}</button>
          ${o.until ? html`<a href="/me#movements">${w.untilToday}</a>` : ''}
        </form>`;
  const pager = html`<nav aria-label="${w.purchases}" class="actions">
    ${
      a.page > 1
        ? html`<a class="button secondary" href="${href(a.page - 1, a.balanceCursor, 'purchases')}"
            >${w.newer}</a
          >`
        : ''
    }${
      a.purchases.hasMore
        ? html`<a class="button secondary" href="${href(a.page + 1, a.balanceCursor, 'purchases')}"
            >${w.older}</a
          >`
        : ''
    }
  </nav>`;
  const cards =
    o.cards.length === 0
      ? html`<p>${w.noCards}</p>`
      : html`<ul>
          ${o.cards.map((c) => html`<li>${c.tokenId} (${w.cardState[c.state] ?? c.state})</li>`)}
        </ul>`;
  const body = html` <nav class="top">
      <strong>${o.merchantName}</strong>
      <form method="post" action="/me/sign-out">
        <input type="hidden" name="csrf" value="${a.csrfToken}" /><button class="secondary" type="submit">
          ${w.signOut}
        </button>
      </form>
    </nav>
    <h1>${w.title}</h1>
    <p class="meta">${o.fullName ?? ''}${o.fullName && o.email ? ' · ' : ''}${o.email ?? ''}</p>
    <h2>${w.points}</h2>
    ${tiers} ${points}
    <h2>${w.balance}</h2>
    <p><strong>${money(o.balanceMinor)}</strong></p>
    ${cut}
    <h3 id="movements">${w.movements}</h3>
    ${movements}${movementsPager}
    <h2 id="purchases">${w.purchases}</h2>
    ${a.page > 1 ? html`<p class="muted">${w.page(a.page)}</p>` : ''}${purchases}${pager}
    <h2>${w.cards}</h2>
    ${cards}
    <h2 id="notifications">${w.notifications}</h2>
    ${a.saved ? html`<p class="notice" role="status">${w.saved}</p>` : ''}
    <form method="post" action="/me/preferences">
      <input type="hidden" name="csrf" value="${a.csrfToken}" />
      <label class="switch"
        ><input type="checkbox" name="mail" value="on" ${a.preferences.mail ? html` checked` : ''} />
        ${w.mailSwitch}</label
      >
      <label class="switch"
        ><input type="checkbox" name="push" value="on" ${a.preferences.push ? html` checked` : ''} />
        ${w.pushSwitch}</label
      >
      <label for="language">${w.language}</label>
      <select id="language" name="language">
        <option value="de" ${lang === 'de' ? html`selected` : ''}>Deutsch</option>
        <option value="en" ${lang === 'en' ? html`selected` : ''}>English</option>
      </select>
      <p><button type="submit">${w.save}</button></p>
    </form>
    <div
      id="push"
      data-key="${a.vapidPublicKey}"
      data-csrf="${a.csrfToken}"
      data-done="${w.pushDone}"
      data-failed="${w.pushFailed}"
    >
      <noscript><p class="muted">${w.pushNeedsJs}</p></noscript>
      <button type="button" class="secondary" id="push-subscribe" hidden>${w.pushSubscribe}</button>
      <p id="push-status" role="status" class="muted"></p>
    </div>
    <script src="/me/push.js" defer></script>`;
  return page(w.title, lang, body);
}

/** The small script of the portal: subscribes this browser to push (the only thing that needs JS). */
export const PUSH_SCRIPT = `(() => {
  const box = document.getElementById('push');
  const button = document.getElementById('push-subscribe');
  const status = document.getElementById('push-status');
  if (!box || !button || !('serviceWorker' in navigator) || !('PushManager' in window)) return;
  button.hidden = false;
  const key = (b64) => {
    const s = atob(b64.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (b64.length % 4)) % 4));
    return Uint8Array.from(s, (c) => c.charCodeAt(0));
  };
  button.addEventListener('click', async () => {
    try {
      const reg = await navigator.serviceWorker.register('/me/sw.js', { scope: '/me/' });
      await navigator.serviceWorker.ready;
      const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key(box.dataset.key) });
      const res = await fetch('/api/me/v1/push-subscriptions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': box.dataset.csrf },
        body: JSON.stringify(sub.toJSON()),
      });
      status.textContent = res.ok ? box.dataset.done : box.dataset.failed;
    } catch {
      status.textContent = box.dataset.failed;
    }
  });
})();
`;

/**
 * The service worker: shows each push (a purchase, opening its receipt; a tier reached, opening
 * /me) as a notification that opens the page the push names.
 */
export const SERVICE_WORKER = `self.addEventListener('push', (event) => {
  const data = event.data ? event.data.json() : {};
  event.waitUntil(self.registration.showNotification(data.title || 'Punchcard', { body: data.body || '', data: { url: data.url } }));
});
self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  if (event.notification.data && event.notification.data.url) event.waitUntil(clients.openWindow(event.notification.data.url));
});
`;

export function renderNotFound(lang: Language): string {
  const text = lang === 'de' ? 'Diese Seite gibt es nicht.' : 'There is no such page.';
  return page(lang === 'de' ? 'Nicht gefunden' : 'Not found', lang, html`<h1>${text}</h1>`);
}

/**
 * A page's link that was edited or cut (a field given twice, a number that is none, U+0000): what
 * happened in the reader's words, and the way back, instead of the check's message for integrators.
 */
export function renderBadLink(lang: Language): string {
  const w = words[lang];
  return page(
    w.badLinkTitle,
    lang,
    html`<h1>${w.badLinkTitle}</h1>
      <p>${w.badLinkText}</p>
      <p><a href="/me">${w.title}</a></p>`,
  );
}

export function renderError(lang: Language, message: string, status: number): string {
  return page(
    String(status),
    lang,
    html`<h1>${message}</h1>
      <p><a href="/me">/me</a></p>`,
  );
}
