import type { PurchaseEntry } from '../notifications/consumer-portal.js';
import type { AccountOverview } from '../notifications/consumer-account.store.js';
import type { MovementPurpose } from '../notifications/consumer-movements.store.js';
import {
  type Language,
  formatDate,
  formatLocalTime,
  formatMoney,
  itemsText,
} from '../receipts/receipt-text.js';
import { html, page } from './html.js';

/** The consumer portal's pages (`/me`), German and English; reading works without JavaScript. */
const words = {
  en: {
    title: 'My account',
    signInTitle: 'Sign in',
    signInIntro:
      'Enter the e-mail address of your customer account. We send you a link to sign in; no password needed.',
    email: 'E-mail address',
    sendLink: 'Send sign-in link',
    linkSent: 'If an account has this address, a sign-in link is on its way. It works once, for 15 minutes.',
    linkInvalid: 'This sign-in link is unknown, used or expired. Ask for a new one below.',
    tooManyLinks: (minutes: number) =>
      `Too many sign-in links were asked for from your network. Please try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`,
    signOut: 'Sign out',
    points: 'Points',
    noPoints: 'No points yet.',
    tier: (name: string | null, scheme: string) =>
      name === null ? `${scheme}: no tier yet` : `${scheme}: ${name}`,
    tierPeriod: (days: number | undefined, calendar: string | undefined) =>
      days !== undefined ? `in the last ${days} days` : `this ${calendar ?? 'month'}`,
    tierNext: (missing: string, name: string) => `${missing} more to reach ${name}.`,
    tierTop: 'You have reached the highest tier.',
    pointsUnit: 'points',
    expires: (n: number, date: string) => `${n} expire on ${date}`,
    balance: 'Balance',
    movements: 'Balance movements',
    noMovements: 'No movements yet.',
    purposes: {
      top_up: 'Top-up',
      till_load: 'Loaded at the till',
      till_payment: 'Paid at the till',
      order: 'Order',
      refund: 'Refund of an order',
      correction: 'Correction by the shop',
      card_linked: 'Card balance moved in',
    } satisfies Record<MovementPurpose, string>,
    order: 'Order',
    pointsChange: (n: number, scheme: string) => `${n > 0 ? '+' : '−'}${Math.abs(n)} ${scheme}`,
    returned: (date: string, what: string) => `Returned on ${date}${what ? `: ${what}` : ''}`,
    refunded: (date: string, amount: string) => `Refunded on ${date}: ${amount} back to the balance`,
    purchases: 'Purchases',
    noPurchases: 'No purchases yet.',
    receipt: 'Receipt',
    withCard: (id: string) => `with card ${id}`,
    newer: 'Newer',
    older: 'Older',
    cards: 'Customer cards',
    noCards: 'No customer card linked.',
    cardState: { registered: 'active', locked: 'locked', released: 'released' } as Record<string, string>,
    notifications: 'Notifications',
    mailSwitch: 'E-mail after each purchase and when you reach a new tier',
    pushSwitch: 'Push message after each purchase and when you reach a new tier',
    save: 'Save',
    pushSubscribe: 'Receive push messages in this browser',
    pushNeedsJs: 'Push messages need JavaScript and a browser that supports them.',
    pushDone: 'This browser receives push messages.',
    pushFailed: 'This browser could not be subscribed.',
    saved: 'Saved.',
    page: (n: number) => `Page ${n}`,
  },
  de: {
    title: 'Mein Konto',
    signInTitle: 'Anmelden',
    signInIntro:
      'Geben Sie die E-Mail-Adresse Ihres Kundenkontos ein. Wir senden Ihnen einen Anmeldelink; ein Passwort brauchen Sie nicht.',
    email: 'E-Mail-Adresse',
    sendLink: 'Anmeldelink senden',
    linkSent:
      'Falls ein Konto diese Adresse hat, ist ein Anmeldelink unterwegs. Er gilt einmal, 15 Minuten lang.',
    linkInvalid:
      'Dieser Anmeldelink ist unbekannt, benutzt oder abgelaufen. Fordern Sie unten einen neuen an.',
    tooManyLinks: (minutes: number) =>
      `Aus Ihrem Netzwerk wurden zu viele Anmeldelinks angefordert. Bitte versuchen Sie es in ${minutes} ${minutes === 1 ? 'Minute' : 'Minuten'} erneut.`,
    signOut: 'Abmelden',
    points: 'Punkte',
    noPoints: 'Noch keine Punkte.',
    tier: (name: string | null, scheme: string) =>
      name === null ? `${scheme}: noch keine Stufe` : `${scheme}: ${name}`,
    tierPeriod: (days: number | undefined, calendar: string | undefined) =>
      days !== undefined
        ? `in den letzten ${days} Tagen`
        : calendar === 'year'
          ? 'in diesem Jahr'
          : calendar === 'quarter'
            ? 'in diesem Quartal'
            : 'in diesem Monat',
    tierNext: (missing: string, name: string) => `Noch ${missing} bis ${name}.`,
    tierTop: 'Sie haben die höchste Stufe erreicht.',
    pointsUnit: 'Punkte',
    expires: (n: number, date: string) => `${n} verfallen am ${date}`,
    balance: 'Guthaben',
    movements: 'Guthabenbewegungen',
    noMovements: 'Noch keine Bewegungen.',
    purposes: {
      top_up: 'Aufladung',
      till_load: 'An der Kasse aufgeladen',
      till_payment: 'An der Kasse bezahlt',
      order: 'Bestellung',
      refund: 'Erstattung einer Bestellung',
      correction: 'Korrektur durch das Geschäft',
      card_linked: 'Kartenguthaben übernommen',
    } satisfies Record<MovementPurpose, string>,
    order: 'Bestellung',
    pointsChange: (n: number, scheme: string) => `${n > 0 ? '+' : '−'}${Math.abs(n)} ${scheme}`,
    returned: (date: string, what: string) => `Zurückgegeben am ${date}${what ? `: ${what}` : ''}`,
    refunded: (date: string, amount: string) => `Erstattet am ${date}: ${amount} zurück aufs Guthaben`,
    purchases: 'Einkäufe',
    noPurchases: 'Noch keine Einkäufe.',
    receipt: 'Beleg',
    withCard: (id: string) => `mit Karte ${id}`,
    newer: 'Neuere',
    older: 'Ältere',
    cards: 'Kundenkarten',
    noCards: 'Keine Kundenkarte verknüpft.',
    cardState: { registered: 'aktiv', locked: 'gesperrt', released: 'aufgelöst' } as Record<string, string>,
    notifications: 'Benachrichtigungen',
    mailSwitch: 'E-Mail nach jedem Einkauf und beim Erreichen einer neuen Stufe',
    pushSwitch: 'Push-Nachricht nach jedem Einkauf und beim Erreichen einer neuen Stufe',
    save: 'Speichern',
    pushSubscribe: 'Push-Nachrichten in diesem Browser erhalten',
    pushNeedsJs: 'Push-Nachrichten brauchen JavaScript und einen Browser, der sie unterstützt.',
    pushDone: 'Dieser Browser erhält Push-Nachrichten.',
    pushFailed: 'Dieser Browser konnte nicht angemeldet werden.',
    saved: 'Gespeichert.',
    page: (n: number) => `Seite ${n}`,
  },
};

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
  readonly overview: AccountOverview;
  readonly purchases: { rows: PurchaseEntry[]; hasMore: boolean };
  readonly page: number;
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
    o.movements.length === 0
      ? html`<p>${w.noMovements}</p>`
      : html`<table class="movements">
          <tbody>
            ${o.movements.map(
              (m) =>
                html`<tr>
                  <td>${formatDate(m.time, lang, o.timeZone)}</td>
                  <td>
                    ${w.purposes[m.purpose]}${m.place ? html` · ${m.place}` : ''}${m.what ? html`<br /><span class="muted">${m.what}</span>` : ''}
                  </td>
                  <td class="num">${money(m.amountMinor)}<br />${receiptLink(m.receiptId)}</td>
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
  const pager = html`<nav aria-label="${w.purchases}" class="actions">
    ${
      a.page > 1 ? html`<a class="button secondary" href="/me?page=${a.page - 1}">${w.newer}</a>` : ''
    }${a.purchases.hasMore ? html`<a class="button secondary" href="/me?page=${a.page + 1}">${w.older}</a>` : ''}
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
    <h3>${w.movements}</h3>
    ${movements}
    <h2 id="purchases">${w.purchases}</h2>
    ${a.page > 1 ? html`<p class="muted">${w.page(a.page)}</p>` : ''}${purchases}${pager}
    <h2>${w.cards}</h2>
    ${cards}
    <h2>${w.notifications}</h2>
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

export function renderError(lang: Language, message: string, status: number): string {
  return page(
    String(status),
    lang,
    html`<h1>${message}</h1>
      <p><a href="/me">/me</a></p>`,
  );
}
