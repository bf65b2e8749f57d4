import { type Language, languageOf } from '../receipts/receipt-text.js';
import { plainMailHtml } from './mail-html.js';
import type { OutgoingMail } from './mailer.js';
import type { PortalProfile } from './consumer-auth.store.js';

const text = {
  en: {
    subject: (m: string) => `Your sign-in link for ${m}`,
    body: (m: string, link: string) =>
      `Hello,\n\nopen this link to sign in to your account at ${m}:\n\n${link}\n\n` +
      'It works once, for 15 minutes. If you did not ask for it, ignore this mail.\n',
  },
  de: {
    subject: (m: string) => `Ihr Anmeldelink für ${m}`,
    body: (m: string, link: string) =>
      `Hallo,\n\nmit diesem Link melden Sie sich bei Ihrem Konto bei ${m} an:\n\n${link}\n\n` +
      'Er gilt einmal, 15 Minuten lang. Falls Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail.\n',
  },
};

/** The mail with the one-time sign-in link of the consumer portal. */
export function composeSignInMail(profile: PortalProfile, link: string, fallback: Language): OutgoingMail {
  const lang = profile.language ? languageOf(profile.language) : fallback;
  const t = text[lang];
  const body = t.body(profile.merchantName, link);
  return {
    to: profile.email,
    subject: t.subject(profile.merchantName),
    text: body,
    html: plainMailHtml(body, link, lang),
  };
}
