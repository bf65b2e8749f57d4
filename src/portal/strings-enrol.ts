import type { PortalLang } from '../portal-users/portal-user.store.js';

/** The texts of enrolling a customer and linking a card, in English and German. */
const EN = {
  newCustomer: 'New customer',
  enrolTitle: 'Enrol a customer',
  enrolIntro:
    'A name or an e-mail address is enough. With an address the customer gets their receipts by e-mail and signs in to their own page with it.',
  fullName: 'Name',
  email: 'E-mail address',
  language: 'Language of receipts and mails',
  cardNumber: 'Card number (optional)',
  cardNumberShort: 'Card number',
  cardNumberHelp:
    'The number on the card. A new number becomes a customer card; the balance and points of a card without a customer move to them.',
  enrol: 'Enrol customer',
  emailTaken: 'A customer with this e-mail address exists already. Find them under Cards by the address.',
  cardLinkedElsewhere: 'This card belongs to another customer. Nothing was saved.',
  cardLocked: 'This card is locked or expired. Nothing was saved.',
  nameOrEmail: 'Give a name, or an e-mail address such as name@example.org.',
  emailRefused:
    'No mail server would take this address: look for a slip, such as two dots in a row or nothing after the @. Nothing was saved.',
  linkCard: 'Link a card',
  linkCardButton: 'Link card',
  enrolWithCard: 'Enrol a new customer with this card',
  enrolFound: 'Enrol as a new customer',
  enrolledBy: 'Enrolled',
  allCustomers: 'All customers',
  moreCustomers: 'More customers',
  firstCustomers: 'First page',
  noCustomers: 'No customers yet.',
  customersCsv: 'Every customer found as CSV',
  allCustomersCsv: 'All customers as CSV',
  highestBalanceFirst: 'Highest balance first',
  oldestFirst: 'Oldest first',
  welcomeMail: 'Send a welcome mail',
  welcomeMailHelp:
    'With an e-mail address: their card, balance and points, and how they reach their own page with their receipts.',
  detailsTitle: 'Name and language',
  languageUnset: 'Not set',
  detailsHelp:
    "Their receipts and mails come in this language, and their own page opens in it. Not set: the receipt's language (German for a shop in a German-speaking time zone, else English).",
  detailsSave: 'Save',
  keepName: 'This customer has no e-mail address: keep a name.',
};

const DE: Record<keyof typeof EN, string> = {
  newCustomer: 'Neuer Kunde',
  enrolTitle: 'Kunden anlegen',
  enrolIntro:
    'Ein Name oder eine E-Mail-Adresse genügt. Mit Adresse erhält der Kunde seine Belege per E-Mail und meldet sich damit auf seiner eigenen Seite an.',
  fullName: 'Name',
  email: 'E-Mail-Adresse',
  language: 'Sprache der Belege und E-Mails',
  cardNumber: 'Kartennummer (optional)',
  cardNumberShort: 'Kartennummer',
  cardNumberHelp:
    'Die Nummer auf der Karte. Eine neue Nummer wird als Kundenkarte angelegt; Guthaben und Punkte einer Karte ohne Kunden gehen auf ihn über.',
  enrol: 'Kunden anlegen',
  emailTaken:
    'Ein Kunde mit dieser E-Mail-Adresse existiert bereits. Sie finden ihn unter Karten über die Adresse.',
  cardLinkedElsewhere: 'Diese Karte gehört einem anderen Kunden. Nichts wurde gespeichert.',
  cardLocked: 'Diese Karte ist gesperrt oder abgelaufen. Nichts wurde gespeichert.',
  nameOrEmail: 'Geben Sie einen Namen an, oder eine E-Mail-Adresse wie name@example.org.',
  emailRefused:
    'Diese Adresse nimmt kein Mailserver an: Prüfen Sie sie auf einen Tippfehler, etwa zwei Punkte hintereinander oder nichts nach dem @. Nichts wurde gespeichert.',
  linkCard: 'Karte verknüpfen',
  linkCardButton: 'Karte verknüpfen',
  enrolWithCard: 'Neuen Kunden mit dieser Karte anlegen',
  enrolFound: 'Als neuen Kunden anlegen',
  enrolledBy: 'Angelegt',
  allCustomers: 'Alle Kunden',
  moreCustomers: 'Weitere Kunden',
  firstCustomers: 'Erste Seite',
  noCustomers: 'Noch keine Kunden.',
  customersCsv: 'Alle gefundenen Kunden als CSV',
  allCustomersCsv: 'Alle Kunden als CSV',
  highestBalanceFirst: 'Höchstes Guthaben zuerst',
  oldestFirst: 'Älteste zuerst',
  welcomeMail: 'Willkommens-E-Mail senden',
  welcomeMailHelp:
    'Mit E-Mail-Adresse: seine Karte, sein Guthaben und seine Punkte, und wie er seine eigene Seite mit seinen Belegen erreicht.',
  detailsTitle: 'Name und Sprache',
  languageUnset: 'Nicht festgelegt',
  detailsHelp:
    'In dieser Sprache erhält der Kunde Belege und E-Mails, und seine eigene Seite öffnet sich darin. Nicht festgelegt: die Sprache des Belegs (Deutsch für ein Geschäft in einer deutschsprachigen Zeitzone, sonst Englisch).',
  detailsSave: 'Speichern',
  keepName: 'Dieser Kunde hat keine E-Mail-Adresse: Lassen Sie einen Namen stehen.',
};

export type EnrolKey = keyof typeof EN;

export function enrolTranslator(lang: PortalLang): (key: EnrolKey) => string {
  return (key) => (lang === 'de' ? DE[key] : EN[key]);
}
