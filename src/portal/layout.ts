import type { PortalLang } from '../portal-users/portal-user.store.js';
import { BoundedCache } from '../shared/bounded-cache.js';
import { currencyExponent, minorToMajorText } from '../shared/money.js';
import { type Html, html } from './html.js';
import { codeWord } from './code-words.js';
import { type StringKey, type Translate, translator } from './strings.js';

export interface PageUser {
  email: string;
  role: 'owner' | 'staff';
  lang: PortalLang;
  csrfToken: string;
  merchant: { serviceUserName: string; displayName: string; currency: string; timeZone: string };
}

const NAV: { key: StringKey; href: string }[] = [
  { key: 'dashboard', href: '/portal/dashboard' },
  { key: 'terminals', href: '/portal/terminals' },
  { key: 'campaigns', href: '/portal/campaigns' },
  { key: 'baskets', href: '/portal/baskets' },
  { key: 'orders', href: '/portal/orders' },
  { key: 'cards', href: '/portal/cards' },
  { key: 'catalog', href: '/portal/catalog' },
  { key: 'developers', href: '/portal/developers' },
  { key: 'settings', href: '/portal/settings' },
];

const numberFormats = new BoundedCache<string, Intl.NumberFormat>(100);

/**
 * A number format of the user's language, made once per language and options: building one costs
 * some 100 to 200 µs, which a page of a year by day and outlet (thousands of amounts) paid seconds for.
 */
export function numberFormat(lang: PortalLang, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  return numberFormats.getOrSet(
    `${lang} ${JSON.stringify(options)}`,
    () => new Intl.NumberFormat(lang === 'de' ? 'de-DE' : 'en-GB', options),
  );
}

/** Money for people: the exact decimal of the minor units, formatted in the user's language. */
export function money(minor: number, currency: string, lang: PortalLang): string {
  return majorMoney(minorToMajorText(minor, currencyExponent(currency)), currency, lang);
}

/**
 * Money for people from the exact decimal in major units the portal's API answers (`"3.20"`): the
 * decimal is formatted as the text it is (Intl reads a string exactly), never through a float.
 */
export function majorMoney(decimal: string, currency: string, lang: PortalLang): string {
  return numberFormat(lang, { style: 'currency', currency }).format(decimal as unknown as number);
}

/** The lists' date formats, one per language and time zone (building one costs some 80 µs). */
const dateTimeFormats = new BoundedCache<string, Intl.DateTimeFormat>(1_000);

export function dateTime(iso: string | null, lang: PortalLang, timeZone: string): string {
  if (iso === null) return '';
  const format = dateTimeFormats.getOrSet(
    `${lang} ${timeZone}`,
    () =>
      new Intl.DateTimeFormat(lang === 'de' ? 'de-DE' : 'en-GB', {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone,
      }),
  );
  return format.format(new Date(iso));
}

/** The days' format, one per language: 28.11.2026 in German, 28 Nov 2026 in English. */
const dayFormats = new BoundedCache<string, Intl.DateTimeFormat>(10);

/** A calendar day (YYYY-MM-DD, already the merchant's) in the user's language. */
export function dayText(day: string, lang: PortalLang): string {
  const format = dayFormats.getOrSet(
    lang,
    () =>
      new Intl.DateTimeFormat(lang === 'de' ? 'de-DE' : 'en-GB', {
        day: lang === 'de' ? '2-digit' : 'numeric',
        month: lang === 'de' ? '2-digit' : 'short',
        year: 'numeric',
        timeZone: 'UTC',
      }),
  );
  return format.format(new Date(`${day}T00:00:00Z`));
}

export function badge(kind: string, text: string): Html {
  return html`<span class="badge ${kind}">${text}</span>`;
}

/** The page frame: skip link, header with navigation, language and sign-out, the content. */
export function page(options: {
  title: string;
  lang: PortalLang;
  user: PageUser | null;
  active?: StringKey;
  body: Html;
  scripts?: string[];
}): string {
  const t = translator(options.lang);
  const user = options.user;
  const header = user
    ? html`<header class="top">
        <div class="brand">Punchcard<small>${user.merchant.displayName}</small></div>
        <nav class="main" aria-label="${t('portal')}">
          ${NAV.map(
            (n) =>
              html`<a href="${n.href}" ${options.active === n.key ? html`aria-current="page"` : ''}
                >${t(n.key)}</a
              >`,
          )}
        </nav>
        <div class="who">
          <span>${user.email} (${codeWord(user.lang, user.role)})</span>
          <label class="muted"
            ><span class="skip">${t('language')}</span>
            <select data-lang aria-label="${t('language')}">
              <option value="en" ${user.lang === 'en' ? html`selected` : ''}>English</option>
              <option value="de" ${user.lang === 'de' ? html`selected` : ''}>Deutsch</option>
            </select></label
          >
          <form data-api="DELETE /portal/api/v1/session" data-next="/portal/signin" data-no-body>
            <button type="submit" class="secondary">${t('signOut')}</button>
          </form>
        </div>
      </header>`
    : html`<header class="top">
        <div class="brand">Punchcard<small>${t('portal')}</small></div>
      </header>`;
  const scripts = [...(options.scripts ?? []), '/portal/assets/portal.js'];
  return html`<!doctype html>
    <html lang="${options.lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${user ? html`<meta name="csrf-token" content="${user.csrfToken}" />` : ''}
        <title>${options.title} · Punchcard</title>
        <link rel="stylesheet" href="/portal/assets/portal.css" />
      </head>
      <body>
        <a class="skip" href="#content">${t('skip')}</a>
        ${header}
        <main id="content" tabindex="-1">
          <h1>${options.title}</h1>
          ${options.body}
        </main>
        ${scripts.map((s) => html`<script src="${s}" defer></script>`)}
      </body>
    </html>`.text;
}

export type { Translate };
