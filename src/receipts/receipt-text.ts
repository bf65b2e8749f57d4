import type { ReceiptQuantity, ReceiptReturn, ReceiptView } from './receipt-view.js';
import { BoundedCache } from '../shared/bounded-cache.js';
import { currencyExponent, minorToMajorText } from '../shared/money.js';

/**
 * Words and number formats of the receipt, the purchase mail and the consumer portal, in German
 * and English (docs/decisions.md, "Notifications, receipts and the consumer portal"). Amounts are
 * formatted from their exact decimal text, never through a float.
 */
export type Language = 'de' | 'en';

export function languageOf(tag: string | null | undefined): Language {
  return (tag ?? '').slice(0, 2).toLowerCase() === 'de' ? 'de' : 'en';
}

/**
 * The language a receipt is shown in (docs/decisions.md, "Language of the receipt"): the
 * consumer's, else one guessed from the merchant's time zone.
 */
export function receiptLanguage(profileLanguage: string | null, timeZone: string): Language {
  const lang = (profileLanguage ?? '').slice(0, 2).toLowerCase();
  if (lang === 'de' || lang === 'en') return lang;
  return /^Europe\/(Berlin|Vienna|Zurich|Busingen|Vaduz)$/.test(timeZone) ? 'de' : 'en';
}

const locales: Record<Language, string> = { de: 'de-DE', en: 'en-GB' };

/**
 * The formats, built once per language (and currency) when first used: building one costs 30 to
 * 100 µs, using it a few, and a receipt formats every line. A currency the platform does not know
 * throws before anything is kept; at most 1,000 number formats are kept (the bounded cache).
 */
type DecimalTextFormat = Intl.NumberFormat & { format(value: string): string };
const numberFormats = new BoundedCache<string, Intl.NumberFormat>(1_000);
const dateFormats = new BoundedCache<string, Intl.DateTimeFormat>(4);

function moneyFormat(currency: string, exponent: number, language: Language): DecimalTextFormat {
  return numberFormats.getOrSet(
    `money ${language} ${currency} ${exponent}`,
    () =>
      new Intl.NumberFormat(locales[language], {
        style: 'currency',
        currency,
        minimumFractionDigits: exponent,
        maximumFractionDigits: exponent,
      }),
  ) as DecimalTextFormat;
}

function numberFormat(language: Language): Intl.NumberFormat {
  return numberFormats.getOrSet(
    `number ${language}`,
    () => new Intl.NumberFormat(locales[language], { maximumFractionDigits: 3 }),
  );
}

function dateFormat(language: Language, withTime: boolean, timeZone: string): Intl.DateTimeFormat {
  return dateFormats.getOrSet(
    `${language} ${withTime} ${timeZone}`,
    () =>
      new Intl.DateTimeFormat(locales[language], {
        dateStyle: 'medium',
        ...(withTime ? { timeStyle: 'short' } : {}),
        timeZone,
      }),
  );
}

export function formatMoney(minor: number, currency: string, language: Language): string {
  let exponent = 2;
  try {
    exponent = currencyExponent(currency);
  } catch {
    exponent = 2;
  }
  return moneyFormat(currency, exponent, language).format(minorToMajorText(minor, exponent));
}

export function formatNumber(n: number, language: Language): string {
  return numberFormat(language).format(n);
}

/** A quantity as the sale counted it, in the reader's language: `2`, `0,245 kg`. */
export function quantityText(q: Pick<ReceiptQuantity, 'quantity' | 'weighed'>, language: Language): string {
  const n = numberFormats
    .getOrSet(
      `quantity ${language}`,
      () => new Intl.NumberFormat(locales[language], { maximumFractionDigits: 20 }),
    )
    // The exact decimal text, formatted as the text it is (never through a float).
    .format(q.quantity as unknown as number);
  return q.weighed ? `${n} kg` : n;
}

/** An article with its quantity: `2 × Croissant`, `0,1 kg Bergkäse`. */
export function itemText(i: ReceiptQuantity, language: Language): string {
  return `${quantityText(i, language)}${i.weighed ? ' ' : ' × '}${i.name}`;
}

/** What went back: `1 × Cappuccino, 0,1 kg Bergkäse`. */
export function itemsText(items: readonly ReceiptQuantity[], language: Language): string {
  return items.map((i) => itemText(i, language)).join(', ');
}

/** The local time of the purchase as the till gave it (its own offset), e.g. "02.03.2026, 16:59". */
export function formatLocalTime(time: Date, offsetMinutes: number, language: Language): string {
  return dateFormat(language, true, 'UTC').format(new Date(time.getTime() + offsetMinutes * 60_000));
}

/**
 * The day of an instant on the merchant's calendar (its time zone), e.g. "03.03.2026" for
 * 2026-03-02T23:30Z in Berlin: a return at half past midnight is dated the day it happened there.
 */
export function formatDate(time: Date, language: Language, timeZone: string): string {
  return dateFormat(language, false, timeZone).format(time);
}

const words = {
  en: {
    receipt: 'Receipt',
    billNumber: 'Bill no.',
    taxNumber: 'VAT ID',
    outlet: 'Store',
    time: 'Time',
    article: 'Article',
    quantity: 'Qty',
    amount: 'Amount',
    discount: 'Discount',
    includedDiscount: (name: string) =>
      name ? `Discount “${name}” (in the prices above)` : 'Discount (in the prices above)',
    rewards: 'Rewards',
    vat: 'VAT',
    vatRate: 'Rate',
    net: 'Net',
    tax: 'Tax',
    gross: 'Gross',
    total: 'Total',
    paidFromBalance: 'Paid from balance',
    paidBy: { balance: 'Paid from balance', gift_card: 'Paid with gift card', other: 'Paid otherwise' },
    refund: 'Refund',
    refunds: 'Returns and refunds',
    toBalance: 'back to the balance',
    refundedNotice: (date: string, amount: string) =>
      `Refunded on ${date}: ${amount} went back to the balance.`,
    pointsChange: (scheme: string, change: number) =>
      `${scheme}: ${change > 0 ? '+' : '−'}${Math.abs(change)} points`,
    points: 'Points',
    earned: 'earned',
    redeemed: 'redeemed',
    newBalance: 'new balance',
    returns: 'Returns',
    returned: 'Returned',
    billPdf: 'Download the bill (PDF)',
    print: 'Print',
    noVat: 'The till did not send VAT rates for these positions; the prices include VAT.',
    partialVat: 'The till sent no VAT rate for some positions; the table covers only those with one.',
    mailSubject: (merchant: string) => `Your purchase at ${merchant}`,
    mailHello: (name: string | null) => (name ? `Hello ${name},` : 'Hello,'),
    mailThanks: (merchant: string) => `thank you for your purchase at ${merchant}.`,
    mailReceipt: 'Your digital receipt',
    mailPdf: 'The bill is attached as a PDF.',
    mailSettings: 'You can switch these mails off in your account',
    pointsLine: (scheme: string, earned: number, redeemed: number, after: number | null) =>
      `${scheme}: ${earned} earned${redeemed ? `, ${redeemed} redeemed` : ''}${after === null ? '' : `, new balance ${after}`}`,
    pushTitle: (merchant: string) => `Purchase at ${merchant}`,
  },
  de: {
    receipt: 'Beleg',
    billNumber: 'Beleg-Nr.',
    taxNumber: 'USt-IdNr.',
    outlet: 'Filiale',
    time: 'Zeit',
    article: 'Artikel',
    quantity: 'Menge',
    amount: 'Betrag',
    discount: 'Rabatt',
    includedDiscount: (name: string) =>
      name ? `Rabatt „${name}“ (in den Preisen oben)` : 'Rabatt (in den Preisen oben)',
    rewards: 'Vorteile',
    vat: 'MwSt.',
    vatRate: 'Satz',
    net: 'Netto',
    tax: 'Steuer',
    gross: 'Brutto',
    total: 'Summe',
    paidFromBalance: 'Vom Guthaben bezahlt',
    paidBy: { balance: 'Vom Guthaben bezahlt', gift_card: 'Mit Gutschein bezahlt', other: 'Anders bezahlt' },
    refund: 'Erstattung',
    refunds: 'Rückgaben und Erstattungen',
    toBalance: 'zurück aufs Guthaben',
    refundedNotice: (date: string, amount: string) =>
      `Erstattet am ${date}: ${amount} gingen zurück aufs Guthaben.`,
    pointsChange: (scheme: string, change: number) =>
      `${scheme}: ${change > 0 ? '+' : '−'}${Math.abs(change)} Punkte`,
    points: 'Punkte',
    earned: 'gesammelt',
    redeemed: 'eingelöst',
    newBalance: 'neuer Stand',
    returns: 'Rückgaben',
    returned: 'Zurückgegeben',
    billPdf: 'Rechnung herunterladen (PDF)',
    print: 'Drucken',
    noVat: 'Die Kasse hat für diese Positionen keine Steuersätze gesendet; die Preise enthalten die MwSt.',
    partialVat:
      'Die Kasse hat nicht für alle Positionen einen Steuersatz gesendet; die Tabelle zeigt nur diese.',
    mailSubject: (merchant: string) => `Ihr Einkauf bei ${merchant}`,
    mailHello: (name: string | null) => (name ? `Hallo ${name},` : 'Hallo,'),
    mailThanks: (merchant: string) => `vielen Dank für Ihren Einkauf bei ${merchant}.`,
    mailReceipt: 'Ihr digitaler Beleg',
    mailPdf: 'Die Rechnung liegt als PDF bei.',
    mailSettings: 'Diese E-Mails können Sie in Ihrem Konto abschalten',
    pointsLine: (scheme: string, earned: number, redeemed: number, after: number | null) =>
      `${scheme}: ${earned} gesammelt${redeemed ? `, ${redeemed} eingelöst` : ''}${after === null ? '' : `, neuer Stand ${after}`}`,
    pushTitle: (merchant: string) => `Einkauf bei ${merchant}`,
  },
};

export type ReceiptWords = (typeof words)['en'];

export function receiptWords(language: Language): ReceiptWords {
  return words[language];
}

/** The short plain-text summary of a purchase (mail body lines, push body): lines, total, payments, points, returns. */
export function purchaseSummary(view: ReceiptView, language: Language): string[] {
  const w = receiptWords(language);
  const lines: string[] = [];
  for (const p of view.positions) {
    const discount = p.discountMinor ? ` (−${formatMoney(p.discountMinor, view.currency, language)})` : '';
    lines.push(
      `${itemText({ ...p, name: p.description }, language)}: ${formatMoney(p.grossMinor, view.currency, language)}${discount}`,
    );
  }
  for (const d of view.includedDiscounts) {
    lines.push(
      `${w.includedDiscount(d.description)}: −${formatMoney(d.valueMinor, view.currency, language)}`,
    );
  }
  for (const r of view.rewards) {
    lines.push(`${w.rewards}: ${r.description} −${formatMoney(r.valueMinor, view.currency, language)}`);
  }
  lines.push(`${w.total}: ${formatMoney(view.totalGrossMinor, view.currency, language)}`);
  // How it was paid, as the receipt shows it under the total.
  for (const p of view.payments) {
    lines.push(`${w.paidBy[p.method]}: ${formatMoney(p.amountMinor, view.currency, language)}`);
  }
  for (const p of view.points) lines.push(w.pointsLine(p.schemeName, p.earned, p.redeemed, p.balanceAfter));
  for (const r of view.returns) lines.push(returnLine(r, view.currency, language, view.timeZone));
  return lines;
}

/**
 * Bytes of a push notification's body: the push services take a payload of one record of 4,096
 * bytes (RFC 8291: 3,993 bytes of plaintext), which also carries the title, the receipt's URL and
 * the event, and JSON escapes the line breaks.
 */
export const PUSH_BODY_BYTES = 3_000;

/**
 * The purchase summary as a push notification's body: whole when it fits `maxBytes` (UTF-8), else
 * the lines before the total cut where the total and what follows it still fit, marked "…"; the
 * receipt the notification opens has them all.
 */
export function pushSummary(view: ReceiptView, language: Language, maxBytes = PUSH_BODY_BYTES): string {
  const lines = purchaseSummary(view, language);
  const whole = lines.join('\n');
  if (Buffer.byteLength(whole) <= maxBytes) return whole;
  const totalPrefix = `${receiptWords(language).total}: `;
  const at = Math.max(
    0,
    lines.findIndex((l) => l.startsWith(totalPrefix)),
  );
  let tail = lines.slice(at);
  let size = Buffer.byteLength([...tail, '…'].join('\n'));
  // So many returns that even the lines from the total on do not fit: the total alone.
  if (size > maxBytes) {
    tail = tail.slice(0, 1);
    size = Buffer.byteLength([...tail, '…'].join('\n'));
  }
  const kept: string[] = [];
  for (const line of lines.slice(0, at)) {
    const bytes = Buffer.byteLength(line) + 1;
    if (size + bytes > maxBytes) break;
    kept.push(line);
    size += bytes;
  }
  return [...kept, '…', ...tail].join('\n');
}

/** One return or refund as a line: what went back, its value, the balance and points it moved, the day. */
export function returnLine(r: ReceiptReturn, currency: string, language: Language, timeZone: string): string {
  const w = receiptWords(language);
  const money = (minor: number) => formatMoney(minor, currency, language);
  const parts = [
    `${r.kind === 'refund' ? w.refund : w.returns}${r.items.length > 0 ? `: ${itemsText(r.items, language)}` : ''} −${money(r.amountMinor)}`,
    ...(r.toBalanceMinor > 0 ? [`${money(r.toBalanceMinor)} ${w.toBalance}`] : []),
    ...r.points.map((p) => w.pointsChange(p.schemeName, p.change)),
  ];
  return `${parts.join(', ')} (${formatDate(r.time, language, timeZone)})`;
}
