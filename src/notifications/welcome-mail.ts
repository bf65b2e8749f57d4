import { type Language, formatMoney, formatNumber, receiptLanguage } from '../receipts/receipt-text.js';
import type { OutgoingMail } from './mailer.js';
import { type MailRecipient, esc } from './purchase-mail.js';

/** What the welcome mail tells: the merchant, the customer's cards, balance and points, and their page. */
export interface WelcomeFacts {
  readonly merchantName: string;
  /** The merchant's time zone: a customer without a language of their own reads the receipt's. */
  readonly timeZone: string;
  readonly currency: string;
  readonly balanceMinor: number;
  readonly points: readonly { readonly schemeName: string; readonly points: number }[];
  readonly cards: readonly string[];
  readonly portalUrl: string;
}

const words = {
  en: {
    subject: (merchant: string) => `Welcome to ${merchant}`,
    hello: (name: string | null) => (name ? `Hello ${name},` : 'Hello,'),
    joined: (merchant: string) => `you are now a customer of ${merchant}.`,
    cards: (ids: string) => `Your card: ${ids}`,
    balance: (amount: string) => `Your balance: ${amount}`,
    points: (n: string, scheme: string) => `${scheme}: ${n} points`,
    receipts: 'After each purchase your receipt comes to this address.',
    page: 'Your points, your balance and every purchase with its receipt are on your own page; sign in there with this e-mail address',
  },
  de: {
    subject: (merchant: string) => `Willkommen bei ${merchant}`,
    hello: (name: string | null) => (name ? `Hallo ${name},` : 'Hallo,'),
    joined: (merchant: string) => `Sie sind jetzt Kunde bei ${merchant}.`,
    cards: (ids: string) => `Ihre Karte: ${ids}`,
    balance: (amount: string) => `Ihr Guthaben: ${amount}`,
    points: (n: string, scheme: string) => `${scheme}: ${n} Punkte`,
    receipts: 'Nach jedem Einkauf kommt Ihr Beleg an diese Adresse.',
    page: 'Ihre Punkte, Ihr Guthaben und jeden Einkauf mit seinem Beleg sehen Sie auf Ihrer eigenen Seite; melden Sie sich dort mit dieser E-Mail-Adresse an',
  },
} satisfies Record<Language, unknown>;

/**
 * The mail a customer enrolled at the counter gets when the staff member asks for it
 * (docs/decisions.md, "The welcome mail"): in their language, their cards, their balance and points
 * as they are when it is sent (a card used before brings its own), and the way to their own page.
 */
export function composeWelcomeMail(to: MailRecipient, facts: WelcomeFacts): OutgoingMail {
  const lang = receiptLanguage(to.language, facts.timeZone);
  const w = words[lang];
  const figures = [
    ...(facts.cards.length > 0 ? [w.cards(facts.cards.join(', '))] : []),
    w.balance(formatMoney(facts.balanceMinor, facts.currency, lang)),
    ...facts.points.map((p) => w.points(formatNumber(p.points, lang), p.schemeName)),
  ];
  const subject = w.subject(facts.merchantName);
  const text = [
    w.hello(to.fullName),
    '',
    w.joined(facts.merchantName),
    '',
    ...figures,
    '',
    w.receipts,
    `${w.page}: ${facts.portalUrl}`,
  ].join('\n');
  const html = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${esc(subject)}</title></head><body style="font-family:system-ui,sans-serif;color:#1a1a1a">
<p>${esc(w.hello(to.fullName))}</p>
<p><strong>${esc(w.joined(facts.merchantName))}</strong></p>
<p>${figures.map(esc).join('<br>')}</p>
<p>${esc(w.receipts)}</p>
<p>${esc(w.page)}: <a href="${esc(facts.portalUrl)}">${esc(facts.portalUrl)}</a></p>
</body></html>`;
  return { to: to.email, fromName: facts.merchantName, subject, text, html };
}
