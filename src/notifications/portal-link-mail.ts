import type { AfterAnswer } from '../shared/after-answer.js';
import { plainMailHtml } from './mail-html.js';
import { sendLinkMail } from './mail-retry.js';
import type { Mailer, OutgoingMail } from './mailer.js';
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

/** A mail with a link to the user, from their business, its HTML the text's with the link live. */
function linkMail(target: ResetTarget, subject: string, text: string, link: string, lang: PortalLang) {
  const mail: OutgoingMail = {
    to: target.email,
    fromName: target.merchantName,
    subject,
    text,
    html: plainMailHtml(text, link, lang),
  };
  return mail;
}

/** The mail with the link that sets a forgotten password, in the user's language (else the page's). */
export function composeResetMail(target: ResetTarget, link: string, fallback: PortalLang): OutgoingMail {
  const lang = target.lang ?? fallback;
  const t = TEXT[lang];
  return linkMail(target, t.subject(target.merchantName), t.body(target.merchantName, link), link, lang);
}

const INVITATION = {
  en: {
    subject: (m: string) => `Your access to the portal of ${m}`,
    body: (m: string, link: string, by: string | null, email: string) =>
      `Hello,\n\n${by === null ? 'you have been given' : `${by} gave you`} access to the portal of ${m}. ` +
      `Open this link to choose your password:\n\n${link}\n\n` +
      `It works once, for 7 days. Then you sign in with this e-mail, ${email}, and your password. If the link ` +
      'has expired, "Forgot your password?" on the sign-in page mails a new one.\n',
  },
  de: {
    subject: (m: string) => `Ihr Zugang zum Portal von ${m}`,
    body: (m: string, link: string, by: string | null, email: string) =>
      `Hallo,\n\n${by === null ? 'Sie haben' : `${by} hat Ihnen`} Zugang zum Portal von ${m} ` +
      `${by === null ? 'erhalten' : 'gegeben'}. Mit diesem Link wählen Sie Ihr Passwort:\n\n${link}\n\n` +
      `Er gilt einmal, 7 Tage lang. Danach melden Sie sich mit dieser E-Mail-Adresse, ${email}, und Ihrem Passwort an. ` +
      'Ist der Link abgelaufen, schickt Ihnen „Passwort vergessen?“ auf der Anmeldeseite einen neuen.\n',
  },
};

/**
 * The mail that invites a new portal user to choose their first password, in their language (else
 * the inviter's), naming the colleague who invited them (null: the operator, who is not named).
 */
export function composeInvitationMail(
  target: ResetTarget,
  link: string,
  invitedBy: string | null,
  fallback: PortalLang,
): OutgoingMail {
  const lang = target.lang ?? fallback;
  const t = INVITATION[lang];
  const text = t.body(target.merchantName, link, invitedBy, target.email);
  return linkMail(target, t.subject(target.merchantName), text, link, lang);
}

/**
 * Sends a portal link's mail after the answer, as every link of the portal is, tried again for a
 * while when it fails for now (sendLinkMail): the service's close waits for it, and a mail that
 * never arrives is replaced by "Forgot your password?".
 */
export async function mailAfterAnswer(
  notifications: { readonly mailer: Mailer; readonly afterAnswer: AfterAnswer },
  mail: OutgoingMail,
  failed: (err: unknown) => void,
): Promise<void> {
  await notifications.afterAnswer.run(
    (stop) => sendLinkMail(notifications.mailer, mail, stop).catch(failed),
    failed,
  );
}
