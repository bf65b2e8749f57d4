import type { ReasonCode } from '../engine/reasons.js';
import type { PortalLang } from '../portal-users/portal-user.store.js';

/**
 * The dry run's answer in the owner's words (docs/decisions.md, "Why a campaign did not apply"):
 * each reason code of the answer as a sentence, the campaigns that kept one from applying named in
 * it, how a campaign stacks, and the loyalty lines. portal.js fills the blanks: {by} (names),
 * {tiers}, {units}, {reward} and {left} (money), {group}, {name}, {before}, {after}, {value}.
 */
type Words = Record<
  ReasonCode | `${'no_units_left' | 'too_few_units'}_by` | 'no_units_left_stack_by' | OtherKey,
  string
>;
type OtherKey =
  | 'quote'
  | 'bill'
  | 'draft'
  | 'stack_exclusive'
  | 'stack_stackable'
  | 'stack_group'
  | 'loyalty'
  | 'loyalty_redeemed'
  | 'recent_title'
  | 'recent_help'
  | 'recent_help_scheme'
  | 'recent_scheme'
  | 'recent_try'
  | 'recent_applied'
  | 'recent_applied_orders'
  | 'recent_example_order'
  | 'recent_discount'
  | 'recent_none'
  | 'recent_skipped'
  | 'recent_times'
  | 'recent_example'
  | 'recent_others'
  | 'recent_campaign'
  | 'recent_baskets'
  | 'recent_discount_col';

const EN: Words = {
  applied: 'applied',
  basket_has_discounts: 'the till marked the basket as discounted already (HasDiscounts)',
  not_valid_yet: 'not valid yet at the basket’s time',
  expired: 'no longer valid at the basket’s time',
  outlet_not_included: 'not for this outlet',
  channel_not_included: 'not for this channel (till or ordering app)',
  coupon_code_not_presented: 'its code was not presented',
  consumer_required: 'only for known customers: the basket names no card',
  tier_not_held: 'only for customers in status tier {tiers}',
  usage_limit_needs_consumer: 'it has a limit per customer and the basket names no card',
  usage_limit_reached: 'the customer has used it as often as it allows',
  max_applications_zero: 'it allows no application',
  outside_schedule: 'outside its times',
  minimum_total_not_reached: 'the bill does not reach its minimum total',
  reward_zero: 'its discount would be nothing: nothing left to take it off',
  no_units_left:
    'not enough of its articles free in the basket (not there, outside its times or discounted by the till)',
  no_units_left_by:
    'its articles were discounted already by {by}. To have this campaign come first, give it a higher priority.',
  no_units_left_stack_by:
    'its articles carry {by}, which it does not stack with. Its stacking setting decides what it adds to, not its priority.',
  too_few_units: 'one application needs {units} of its articles; the basket has fewer free',
  too_few_units_by: 'one application needs {units} of its articles; fewer are left free after {by}',
  excluded_by_exclusive: '{by} is exclusive: no other bill campaign applies beside it',
  held_back_no_redemptions: 'held back by its budget: no redemptions left',
  held_back_budget: 'held back by its budget: its discount {reward} is more than the {left} left',
  no_article_matches: 'no article of the basket is one of its articles',
  invalid_buy_get: 'its definition cannot be applied (buy and get)',
  invalid_combination: 'its definition cannot be applied (its parts)',
  quote: '“{name}”',
  bill: 'bill',
  draft: '{name} (this draft)',
  stack_exclusive: 'exclusive',
  stack_stackable: 'stacks with all',
  stack_group: 'stacks in group {group}',
  loyalty: '{name}: {before} → {after} points',
  loyalty_redeemed: ', {value} redeemed',
  recent_title: 'On your last baskets',
  recent_help:
    'Tries the campaign as the form has it on the last {limit} baskets your tills sent, and on the last {limit} online orders, with your live campaigns: in how many it would apply, and why not in the others.',
  recent_help_scheme:
    'Tries the scheme as the form has it on the last {limit} baskets your tills sent: how many points it would earn the customers they name (with their status tiers as they are now). Points redeemed depend on each balance as it grew and are not shown.',
  recent_scheme:
    '{customers} of the {of} baskets named a customer; in {n} of them it would earn {points} points.',
  recent_try: 'Try on the last {limit} baskets',
  recent_applied: 'Applies in {n} of {of} baskets',
  recent_applied_orders: 'Applies in {n} of {of} baskets and in {m} of {orders} online orders',
  recent_discount: ', discount together {amount}',
  recent_none: 'Your tills have sent no basket yet.',
  recent_skipped:
    'Baskets that could not be tried again (their till removed, or a card they name locked): {n}.',
  recent_times: '{n} ×',
  recent_example: '(for example basket {basket})',
  recent_example_order: '(for example online order {basket})',
  recent_others: 'The other campaigns in these baskets',
  recent_campaign: 'Campaign',
  recent_baskets: 'Baskets',
  recent_discount_col: 'Discount',
};

const DE: Words = {
  applied: 'angewendet',
  basket_has_discounts: 'die Kasse hat den Warenkorb als schon rabattiert markiert (HasDiscounts)',
  not_valid_yet: 'zur Zeit des Warenkorbs noch nicht gültig',
  expired: 'zur Zeit des Warenkorbs nicht mehr gültig',
  outlet_not_included: 'nicht für diese Filiale',
  channel_not_included: 'nicht für diesen Kanal (Kasse oder Bestell-App)',
  coupon_code_not_presented: 'ihr Code wurde nicht vorgelegt',
  consumer_required: 'nur für bekannte Kunden: der Warenkorb nennt keine Karte',
  tier_not_held: 'nur für Kunden der Stufe {tiers}',
  usage_limit_needs_consumer: 'sie hat eine Grenze je Kunde, und der Warenkorb nennt keine Karte',
  usage_limit_reached: 'der Kunde hat sie so oft genutzt, wie sie erlaubt',
  max_applications_zero: 'sie erlaubt keine Anwendung',
  outside_schedule: 'außerhalb ihrer Zeiten',
  minimum_total_not_reached: 'die Rechnung erreicht ihren Mindestbetrag nicht',
  reward_zero: 'ihr Rabatt wäre null: nichts mehr übrig, wovon er abginge',
  no_units_left:
    'nicht genug ihrer Artikel frei im Warenkorb (nicht da, außerhalb ihrer Zeiten oder von der Kasse rabattiert)',
  no_units_left_by:
    'ihre Artikel sind schon rabattiert durch {by}. Damit diese Aktion zuerst kommt, geben Sie ihr eine höhere Priorität.',
  no_units_left_stack_by:
    'ihre Artikel tragen schon {by}, womit sie nicht stapelt. Worauf sie aufsetzt, entscheidet ihre Stapel-Einstellung, nicht ihre Priorität.',
  too_few_units: 'eine Anwendung braucht {units} ihrer Artikel; im Warenkorb sind weniger frei',
  too_few_units_by: 'eine Anwendung braucht {units} ihrer Artikel; nach {by} sind weniger frei',
  excluded_by_exclusive: '{by} ist exklusiv: daneben gilt keine andere Rechnungsaktion',
  held_back_no_redemptions: 'von ihrem Budget zurückgehalten: keine Einlösungen mehr übrig',
  held_back_budget: 'von ihrem Budget zurückgehalten: ihr Rabatt {reward} ist mehr als die übrigen {left}',
  no_article_matches: 'kein Artikel des Warenkorbs gehört zu ihren Artikeln',
  invalid_buy_get: 'ihre Definition lässt sich nicht anwenden (Kaufe N, erhalte M)',
  invalid_combination: 'ihre Definition lässt sich nicht anwenden (ihre Teile)',
  quote: '„{name}“',
  bill: 'Rechnung',
  draft: '{name} (dieser Entwurf)',
  stack_exclusive: 'exklusiv',
  stack_stackable: 'stapelt mit allen',
  stack_group: 'stapelt in Gruppe {group}',
  loyalty: '{name}: {before} → {after} Punkte',
  loyalty_redeemed: ', {value} eingelöst',
  recent_title: 'Mit Ihren letzten Warenkörben',
  recent_help:
    'Prüft die Aktion, wie sie im Formular steht, an den letzten {limit} Warenkörben Ihrer Kassen und den letzten {limit} Online-Bestellungen mit Ihren aktiven Aktionen: in wie vielen sie gälte und warum nicht in den anderen.',
  recent_help_scheme:
    'Prüft das Programm, wie es im Formular steht, an den letzten {limit} Warenkörben Ihrer Kassen: wie viele Punkte es den genannten Kunden einbrächte (mit ihrer Stufe von heute). Eingelöste Punkte hängen vom Punktestand ab, wie er wuchs, und werden nicht gezeigt.',
  recent_scheme:
    '{customers} der {of} Warenkörbe nannten einen Kunden; in {n} davon brächte es {points} Punkte.',
  recent_try: 'Mit den letzten {limit} Warenkörben prüfen',
  recent_applied: 'Gilt in {n} von {of} Warenkörben',
  recent_applied_orders: 'Gilt in {n} von {of} Warenkörben und in {m} von {orders} Online-Bestellungen',
  recent_discount: ', Rabatt zusammen {amount}',
  recent_none: 'Ihre Kassen haben noch keinen Warenkorb gesendet.',
  recent_skipped:
    'Warenkörbe, die sich nicht erneut prüfen ließen (ihre Kasse entfernt oder eine genannte Karte gesperrt): {n}.',
  recent_times: '{n} ×',
  recent_example: '(zum Beispiel Warenkorb {basket})',
  recent_example_order: '(zum Beispiel Online-Bestellung {basket})',
  recent_others: 'Die anderen Aktionen in diesen Warenkörben',
  recent_campaign: 'Aktion',
  recent_baskets: 'Warenkörbe',
  recent_discount_col: 'Rabatt',
};

/** What the page hands portal.js to word the dry run's answer: the words, and how to write money. */
export function dryRunWords(lang: PortalLang, currency: string) {
  return { locale: lang === 'de' ? 'de-DE' : 'en-GB', currency, words: lang === 'de' ? DE : EN };
}
