import { plainMailHtml } from '../notifications/mail-html.js';
import type { OutgoingMail } from '../notifications/mailer.js';
import type { ResetTarget } from '../portal-users/password-reset.store.js';
import type { PortalLang } from '../portal-users/portal-user.store.js';

const TEXT = {
  en: {
    subject: (m: string) => `Set a new password for the portal of ${m}`,
    body: (m: string, link: string) =>
      `Hello,\n\nopen this link to set a new password for your access to the portal of ${m}:\n\n${link}\n\n` +
      'It works once, for 30 minutes, and signs you out everywhere. If you did not ask for it, ignore this ' +
      'mail: your password stays as it is.\n',
  },
  de: {
    subject: (m: string) => `Neues Passwort für das Portal von ${m}`,
    body: (m: string, link: string) =>
      `Hallo,\n\nmit diesem Link setzen Sie ein neues Passwort für Ihren Zugang zum Portal von ${m}:\n\n${link}\n\n` +
      'Er gilt einmal, 30 Minuten lang, und meldet Sie überall ab. Falls Sie ihn nicht angefordert haben, ' +
      'ignorieren Sie diese E-Mail: Ihr Passwort bleibt, wie es ist.\n',
  },
};

/** The mail with the link that sets a forgotten password, in the user's language (else the page's). */
export function composeResetMail(target: ResetTarget, link: string, fallback: PortalLang): OutgoingMail {
  const lang = target.lang ?? fallback;
  const t = TEXT[lang];
  const text = t.body(target.merchantName, link);
  return {
    to: target.email,
    fromName: target.merchantName,
    subject: t.subject(target.merchantName),
    text,
    html: plainMailHtml(text, link, lang),
  };
}
