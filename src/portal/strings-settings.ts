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
};

export type SettingsTranslate = (key: SettingsKey) => string;

export function settingsTranslator(lang: PortalLang): SettingsTranslate {
  return (key) => (lang === 'de' ? DE[key] : EN[key]);
}
