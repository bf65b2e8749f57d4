import type { PortalLang } from '../portal-users/portal-user.store.js';

/** The texts of the settings page (what the receipts say of the merchant), in English and German. */
const EN = {
  receiptDetails: 'On your receipts',
  receiptDetailsHelp:
    'Your digital receipts show your name and, when set, these. A field left empty is left off the receipt.',
  legalName: 'Legal name',
  legalNameHelp: 'The name of the business as registered, e.g. Café Müller GmbH.',
  legalAddress: 'Address',
  legalAddressHelp: 'As it is printed, at most 6 lines.',
  taxNumber: 'VAT ID',
  taxNumberHelp: 'Country prefix and number, e.g. DE 123 456 789; saved without spaces.',
  notSet: 'not set',
  ownersOnlySettings: 'Only an owner changes what the receipts say.',
  team: 'Team',
  teamHelp:
    'Who signs in to this portal. Owners change everything; staff see everything, activate tills and try campaigns in the dry run.',
  you: 'You',
  lockedOut: 'Locked for 15 minutes',
  role: 'Role',
  lastSignIn: 'Last signed in',
  neverSignedIn: 'never',
  invited: 'Added',
  changeColleague: 'Change role, password or access',
  saveRole: 'Save role',
  newPassword: 'New password',
  newPasswordHelp: 'At least 10 characters. Your other sessions (another browser, a lost phone) end.',
  setPassword: 'Set password',
  colleaguePasswordSet:
    'Password set. Their sessions have ended; tell them the new password and ask them to change it under Settings.',
  remove: 'Remove',
  removeConfirm: 'Their access ends at once, on every device. What they did stays in the history. Remove',
  invite: 'Add a colleague',
  inviteHelp:
    'Without a first password they are mailed a link to choose their own, valid for 7 days. With one they sign in with it at once: tell it to them yourself; they change it under Settings.',
  email: 'E-mail',
  firstPassword: 'First password (optional)',
  firstPasswordHelp: 'At least 10 characters; leave it empty to invite by e-mail.',
  invitation: 'Invitation',
  invitationOpenUntil: 'mailed, the link works until',
  invitationExpired: 'expired; mailed on',
  inviteButton: 'Add colleague',
  ownersOnlyTeam: 'Only an owner adds colleagues, changes roles and removes access.',
  yourPassword: 'Your password',
  currentPassword: 'Current password',
  changePassword: 'Change password',
  passwordChanged: 'Password changed. Your other sessions have ended.',
  errorCurrentPassword:
    'The current password is wrong. After five wrong passwords in a row the account is locked for 15 minutes.',
  errorTooShort: 'The password needs at least 10 characters.',
  errorLocked: 'Locked for 15 minutes after five wrong passwords in a row.',
  errorUserExists: 'Someone already signs in with this e-mail, here or at another business.',
  errorNotOwner: 'Only an owner can do this; you may no longer be one.',
  errorGone: 'This colleague no longer has access. Reload the page.',
  resendInvitation: 'Send the invitation again',
  errorColleagueSignedIn:
    'This colleague has signed in before: they use "Forgot your password?", or you set a new password for them.',
  errorInvitationsThrottled:
    'Too many invitations by e-mail today (3 to one address, 20 in all). Give a first password instead, or try again tomorrow.',
  forgotPassword: 'Forgot your password?',
  forgotTitle: 'A new password',
  forgotHelp:
    'Enter the e-mail you sign in with. If it has access to a portal, a link to set a new password is mailed to it; it works once, for 30 minutes.',
  sendLink: 'Send link',
  linkSent: 'If this e-mail has access, the link is on its way. Look in your inbox, and in the spam folder.',
  resetHelp: 'Choose your new password. It signs you out everywhere; then sign in with it.',
  setNewPassword: 'Set new password',
  passwordResetDone: 'Your new password is set. Sign in with it.',
  errorResetInvalid: 'This link is used, expired or unknown. Ask for a new one.',
  errorResetThrottled: 'Too many requests from here. Try again in half an hour.',
  linkSpent:
    'This link no longer sets a password: it was used, it expired, or a newer password was set since.',
  askNewLink: 'Ask for a new link',
  inviteTitle: 'Welcome',
  invitedHelp: 'Choose your password for the portal of',
  setFirstPassword: 'Set password',
  firstPasswordDone: 'Your password is set. Sign in with it now.',
  backToSignIn: 'Back to sign-in',
};

type SettingsKey = keyof typeof EN;

const DE: Record<SettingsKey, string> = {
  receiptDetails: 'Auf Ihren Belegen',
  receiptDetailsHelp:
    'Ihre digitalen Belege zeigen Ihren Namen und, wenn angegeben, diese Angaben. Ein leeres Feld erscheint nicht auf dem Beleg.',
  legalName: 'Firmenname',
  legalNameHelp: 'Der eingetragene Name des Unternehmens, z. B. Café Müller GmbH.',
  legalAddress: 'Anschrift',
  legalAddressHelp: 'So wie sie gedruckt wird, höchstens 6 Zeilen.',
  taxNumber: 'USt-IdNr.',
  taxNumberHelp: 'Länderkürzel und Nummer, z. B. DE 123 456 789; gespeichert ohne Leerzeichen.',
  notSet: 'nicht angegeben',
  ownersOnlySettings: 'Nur Inhaber ändern, was auf den Belegen steht.',
  team: 'Team',
  teamHelp:
    'Wer sich in diesem Portal anmeldet. Inhaber ändern alles; Mitarbeiter sehen alles, aktivieren Kassen und probieren Aktionen im Probelauf aus.',
  you: 'Sie',
  lockedOut: 'Für 15 Minuten gesperrt',
  role: 'Rolle',
  lastSignIn: 'Zuletzt angemeldet',
  neverSignedIn: 'noch nie',
  invited: 'Hinzugefügt',
  changeColleague: 'Rolle, Passwort oder Zugang ändern',
  saveRole: 'Rolle speichern',
  newPassword: 'Neues Passwort',
  newPasswordHelp:
    'Mindestens 10 Zeichen. Ihre anderen Sitzungen (ein anderer Browser, ein verlorenes Handy) enden.',
  setPassword: 'Passwort setzen',
  colleaguePasswordSet:
    'Passwort gesetzt. Die Sitzungen sind beendet; teilen Sie das neue Passwort mit und bitten Sie, es unter Einstellungen zu ändern.',
  remove: 'Entfernen',
  removeConfirm:
    'Der Zugang endet sofort, auf jedem Gerät. Was die Person getan hat, bleibt im Verlauf. Entfernen:',
  invite: 'Kollegin oder Kollegen hinzufügen',
  inviteHelp:
    'Ohne erstes Passwort erhält die Person eine E-Mail mit einem Link, um ihr eigenes zu wählen, 7 Tage lang gültig. Mit einem meldet sie sich sofort an: Teilen Sie es ihr selbst mit; geändert wird es unter Einstellungen.',
  email: 'E-Mail-Adresse',
  firstPassword: 'Erstes Passwort (freiwillig)',
  firstPasswordHelp: 'Mindestens 10 Zeichen; leer lassen, um per E-Mail einzuladen.',
  invitation: 'Einladung',
  invitationOpenUntil: 'gesendet, der Link gilt bis',
  invitationExpired: 'abgelaufen; gesendet am',
  inviteButton: 'Hinzufügen',
  ownersOnlyTeam: 'Nur Inhaber fügen Kollegen hinzu, ändern Rollen und entziehen den Zugang.',
  yourPassword: 'Ihr Passwort',
  currentPassword: 'Aktuelles Passwort',
  changePassword: 'Passwort ändern',
  passwordChanged: 'Passwort geändert. Ihre anderen Sitzungen sind beendet.',
  errorCurrentPassword:
    'Das aktuelle Passwort stimmt nicht. Nach fünf falschen Passwörtern in Folge ist das Konto 15 Minuten gesperrt.',
  errorTooShort: 'Das Passwort braucht mindestens 10 Zeichen.',
  errorLocked: 'Nach fünf falschen Passwörtern in Folge für 15 Minuten gesperrt.',
  errorUserExists:
    'Mit dieser E-Mail-Adresse meldet sich schon jemand an, hier oder bei einem anderen Betrieb.',
  errorNotOwner: 'Das dürfen nur Inhaber; Sie sind womöglich keiner mehr.',
  errorGone: 'Diese Person hat keinen Zugang mehr. Laden Sie die Seite neu.',
  resendInvitation: 'Einladung erneut senden',
  errorColleagueSignedIn:
    'Diese Person hat sich schon angemeldet: Sie nutzt „Passwort vergessen?“, oder Sie vergeben ein neues Passwort.',
  errorInvitationsThrottled:
    'Heute schon zu viele Einladungen per E-Mail (3 an eine Adresse, 20 insgesamt). Vergeben Sie stattdessen ein erstes Passwort, oder versuchen Sie es morgen wieder.',
  forgotPassword: 'Passwort vergessen?',
  forgotTitle: 'Ein neues Passwort',
  forgotHelp:
    'Geben Sie die E-Mail-Adresse ein, mit der Sie sich anmelden. Hat sie Zugang zu einem Portal, erhält sie einen Link, mit dem Sie ein neues Passwort setzen; er gilt einmal, 30 Minuten lang.',
  sendLink: 'Link senden',
  linkSent:
    'Hat diese E-Mail-Adresse Zugang, ist der Link unterwegs. Sehen Sie in Ihren Posteingang, auch in den Spam-Ordner.',
  resetHelp: 'Wählen Sie Ihr neues Passwort. Es meldet Sie überall ab; danach melden Sie sich damit an.',
  setNewPassword: 'Neues Passwort setzen',
  passwordResetDone: 'Ihr neues Passwort ist gesetzt. Melden Sie sich damit an.',
  errorResetInvalid: 'Dieser Link ist benutzt, abgelaufen oder unbekannt. Fordern Sie einen neuen an.',
  errorResetThrottled: 'Zu viele Anfragen von hier. Versuchen Sie es in einer halben Stunde wieder.',
  linkSpent:
    'Mit diesem Link lässt sich kein Passwort mehr setzen: Er wurde benutzt, ist abgelaufen, oder seitdem wurde ein neues Passwort gesetzt.',
  askNewLink: 'Neuen Link anfordern',
  inviteTitle: 'Willkommen',
  invitedHelp: 'Wählen Sie Ihr Passwort für das Portal von',
  setFirstPassword: 'Passwort setzen',
  firstPasswordDone: 'Ihr Passwort ist gesetzt. Melden Sie sich jetzt damit an.',
  backToSignIn: 'Zurück zur Anmeldung',
};

export type SettingsTranslate = (key: SettingsKey) => string;

export function settingsTranslator(lang: PortalLang): SettingsTranslate {
  return (key) => (lang === 'de' ? DE[key] : EN[key]);
}
