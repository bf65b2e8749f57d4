import type { PortalLang } from '../portal-users/portal-user.store.js';

/**
 * The portal's words for the codes its JSON API answers (campaign types, card states, roles,
 * kinds of balance and points movements): a page shows these, never the code itself, in English
 * as in German.
 */
const CODE_WORDS: Record<PortalLang, Record<string, string>> = {
  en: {
    product: 'Article discount',
    bill: 'Bill discount',
    quantity: 'Buy N, get M',
    combination: 'Combination offer',
    registered: 'In use',
    locked: 'Locked',
    disposed: 'Disposed of',
    owner: 'Owner',
    staff: 'Staff',
    top_up: 'Top-up',
    withdrawal: 'Paid at the till',
    merge: 'Moved between cards',
    charge: 'Order paid',
    refund: 'Refund',
    reservation: 'Reserved',
    correction: 'Correction',
    earn: 'Earned',
    spend: 'Redeemed',
    return_earned: 'Earned, given back on a return',
    return_spent: 'Redeemed, given back on a return',
    move_out: 'Moved to another card',
    move_in: 'Moved from another card',
    customer: 'Customer card',
    gift: 'Gift card',
  },
  de: {
    product: 'Artikelrabatt',
    bill: 'Rechnungsrabatt',
    quantity: 'Kaufe N, erhalte M',
    combination: 'Kombiangebot',
    registered: 'In Gebrauch',
    locked: 'Gesperrt',
    disposed: 'Entsorgt',
    owner: 'Inhaber',
    staff: 'Mitarbeiter',
    top_up: 'Aufladung',
    withdrawal: 'An der Kasse bezahlt',
    merge: 'Zwischen Karten übertragen',
    charge: 'Bestellung bezahlt',
    refund: 'Erstattung',
    reservation: 'Reserviert',
    correction: 'Korrektur',
    earn: 'Gesammelt',
    spend: 'Eingelöst',
    return_earned: 'Gesammelt, bei Rückgabe zurückgebucht',
    return_spent: 'Eingelöst, bei Rückgabe zurückgebucht',
    move_out: 'Auf eine andere Karte übertragen',
    move_in: 'Von einer anderen Karte übertragen',
    customer: 'Kundenkarte',
    gift: 'Geschenkkarte',
  },
};

/** A code of the API in the user's words; a code without a word shows as it is. */
export function codeWord(lang: PortalLang, code: string): string {
  return CODE_WORDS[lang][code] ?? code;
}
