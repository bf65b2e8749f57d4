import { type Language, formatMoney, formatNumber, languageOf } from '../receipts/receipt-text.js';
import type { TierChangedEvent } from '../loyalty/tier-change.js';
import type { OutgoingMail } from './mailer.js';
import { type MailRecipient, esc } from './purchase-mail.js';

/** What the tier mail says besides the event: the merchant and where the consumer's account is. */
export interface TierMailContext {
  readonly merchantName: string;
  readonly currency: string;
  readonly portalUrl: string;
}

const words = {
  en: {
    subject: (tier: string, scheme: string) => `You reached ${tier} in ${scheme}`,
    hello: (name: string | null) => (name ? `Hello ${name},` : 'Hello,'),
    reached: (tier: string, scheme: string, merchant: string) =>
      `you reached the tier ${tier} in ${scheme} at ${merchant}.`,
    multiplier: (m: string) => `From your next purchase on, you earn ${m} times the points.`,
    next: (missing: string, tier: string) => `${missing} more take you to ${tier}.`,
    top: 'This is the highest tier.',
    points: (n: string) => `${n} points`,
    account: 'Your points and tier in your account',
    settings: 'You can switch these mails off in your account',
  },
  de: {
    subject: (tier: string, scheme: string) => `Sie haben ${tier} erreicht: ${scheme}`,
    hello: (name: string | null) => (name ? `Hallo ${name},` : 'Hallo,'),
    reached: (tier: string, scheme: string, merchant: string) =>
      `Sie haben die Stufe ${tier} in ${scheme} bei ${merchant} erreicht.`,
    multiplier: (m: string) => `Ab Ihrem nächsten Einkauf sammeln Sie das ${m}-Fache an Punkten.`,
    next: (missing: string, tier: string) => `Noch ${missing}, dann erreichen Sie ${tier}.`,
    top: 'Das ist die höchste Stufe.',
    points: (n: string) => `${n} Punkte`,
    account: 'Ihre Punkte und Ihre Stufe in Ihrem Konto',
    settings: 'Diese E-Mails können Sie in Ihrem Konto abschalten',
  },
} satisfies Record<Language, unknown>;

/** What the mail and the push of an upgrade say: the subject and the lines, in the consumer's language. */
function tierWords(
  event: TierChangedEvent,
  language: string | null,
  ctx: TierMailContext,
): { lang: Language; subject: string; lines: [string, string, string] } {
  const tier = event.after;
  if (tier === null) throw new Error('a tier message needs the tier reached');
  const lang = languageOf(language ?? 'en');
  const w = words[lang];
  const missing = (n: number) =>
    event.measure === 'spend' ? formatMoney(n, ctx.currency, lang) : w.points(formatNumber(n, lang));
  return {
    lang,
    subject: w.subject(tier.name, event.schemeName),
    lines: [
      w.reached(tier.name, event.schemeName, ctx.merchantName),
      w.multiplier(formatNumber(tier.multiplierPermille / 1000, lang)),
      event.next ? w.next(missing(event.next.missing), event.next.name) : w.top,
    ],
  };
}

/**
 * The push message of an upgrade: the mail's subject as its title and the mail's short lines (the
 * multiplier, what is missing to the next tier) as its body, opening the consumer's account.
 */
export function composeTierPush(
  event: TierChangedEvent,
  language: string | null,
  ctx: TierMailContext,
): { title: string; body: string; url: string } {
  const { subject, lines } = tierWords(event, language, ctx);
  return { title: subject, body: `${lines[1]}\n${lines[2]}`, url: ctx.portalUrl };
}

/**
 * The mail of an upgrade ("You reached Silver"), in the consumer's language (English without
 * one): the scheme, the new tier and its multiplier, and what is missing to the next tier, in
 * points or in the merchant's currency for spend.
 */
export function composeTierMail(
  event: TierChangedEvent,
  to: MailRecipient,
  ctx: TierMailContext,
): OutgoingMail {
  const { lang, subject, lines } = tierWords(event, to.language, ctx);
  const w = words[lang];
  const text = [
    w.hello(to.fullName),
    '',
    ...lines,
    '',
    `${w.account}: ${ctx.portalUrl}`,
    `${w.settings}: ${ctx.portalUrl}`,
  ].join('\n');
  const html = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${esc(subject)}</title></head><body style="font-family:system-ui,sans-serif;color:#1a1a1a">
<p>${esc(w.hello(to.fullName))}</p>
<p><strong>${esc(lines[0])}</strong></p>
<p>${lines.slice(1).map(esc).join('<br>')}</p>
<p><a href="${esc(ctx.portalUrl)}">${esc(w.account)}</a></p>
<p style="color:#4a4a4a">${esc(w.settings)}: <a href="${esc(ctx.portalUrl)}">${esc(ctx.portalUrl)}</a></p>
</body></html>`;
  return { to: to.email, fromName: ctx.merchantName, subject, text, html };
}
