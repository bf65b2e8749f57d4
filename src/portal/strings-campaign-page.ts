import type { PortalLang } from '../portal-users/portal-user.store.js';

/**
 * The campaign page beyond its form, in English and German: templates to start from, the
 * campaign's state (pause, resume, end), its figures, the dry run's basket built from the
 * sortiment, and the words an owner reads when the server refuses a field. {currency} and
 * {timeZone} are filled in with the merchant's.
 */
const EN = {
  paused: 'paused',
  tiersTitle: 'Status tiers',
  tiersOnly: 'Only for customers whose status tier in “{scheme}” is {names}.',
  tiersOr: ' or ',
  tiersHelp:
    'The tier a customer has before the basket counts. A tier the scheme no longer has never matches. Change the limit in the form below (Only for status tiers).',
  budgetTitle: 'Budget',
  budgetNone: 'No budget: the campaign gives its rewards without limit. Set one in the form below.',
  budgetLimit: 'Limit',
  budgetLeft: 'Left now',
  budgetTotalRow: 'Discount in total',
  budgetBasketsRow: 'Purchases rewarded',
  budgetDayRow: 'Discount today',
  budgetWeekRow: 'Discount this week',
  budgetMonthRow: 'Discount this month',
  budgetSince: 'since',
  budgetHelp:
    'What granted baskets and online orders used, net of returns and orders refunded in whole. A reward that would go over a budget is not given, and the till or the app is not shown it.',
  dryStacked: 'stacked on the reward above',
  dryHeldBack: 'held back by its budget',
  dryStacks: 'stacking',
  dryTiers: 'Stand-in customer’s status tier',
  dryTiersHelp:
    'Tries the basket as a customer in this tier, with no points of their own (a card above is not read). A tier chosen includes the live campaigns and schemes.',
  dryNoTier: 'no tier',
  startFrom: 'Start from a template',
  startFromHelp: 'Fills the form with a common campaign; change anything before saving.',
  blank: 'Empty form',
  tplHappyHour: 'Happy hour on a group',
  tplGroupPercent: 'x % on a group',
  tplBuyNGetOne: 'Buy N, get one free',
  tplBillOver: 'Off the bill over an amount',
  nameHappyHour: 'Happy hour',
  nameGroupPercent: '10 % on a group',
  nameBuyNGetOne: 'Buy 2, get 1 free',
  nameBillOver: '5 off from 30',
  stateTitle: 'State',
  stateLive: 'Live: it gives its rewards at the tills.',
  stateLiveBoth: 'Live: it gives its rewards at the tills and to online orders.',
  stateLiveOnline: 'Live: it gives its rewards to online orders.',
  stateLiveScheme: 'Live: the tills give its points and rewards.',
  stateScheduled: 'Scheduled: it starts at its start of validity.',
  statePaused: 'Paused: it gives nothing, at the tills or to online orders, until you resume it.',
  stateEnded: 'Ended: it gives nothing any more and cannot be changed; its figures stay.',
  pause: 'Pause',
  pauseHelp: 'Stops the rewards at once, for example while an article is sold out. Nothing is lost.',
  resume: 'Resume',
  resumeHelp: 'The rewards apply again from the next basket or online order.',
  end: 'End',
  endHelp: 'Ends it for good: it cannot be resumed or changed (its figures stay).',
  pauseHelpScheme:
    'Stops its points and rewards at once, for example in a week the shop is closed. Nothing is lost.',
  resumeHelpScheme: 'Its points and rewards apply again from the next basket.',
  endHelpScheme: 'Ends it for good: it cannot be resumed or changed (its figures stay).',
  endConfirm: 'End this campaign for good? It cannot be resumed or changed afterwards.',
  endConfirmScheme: 'End this loyalty scheme for good? It cannot be resumed or changed afterwards.',
  figures: 'Figures of the last 30 days',
  uses: 'Uses',
  usesHelp:
    'Applications in granted baskets, net of returns, and in online orders (three discounted coffees: three).',
  cost: 'Cost',
  costHelp: 'The rewards granted and given to online orders, in {currency}.',
  basketsRewarded: 'Baskets',
  ordersRewarded: 'Online orders',
  purchasesRewarded: 'Baskets and online orders',
  pointsEarned: 'Points earned',
  pointsRedeemed: 'Points redeemed',
  day: 'Day',
  noFigures: 'No granted basket or online order used it in the last 30 days.',
  noFiguresWhy: 'Why? Try it on your last baskets below.',
  till: 'Till',
  tillHelp: 'The dry run answers as this till would: its outlet and the article groups of its sortiment.',
  noTill: 'no till (no outlet)',
  recentBasket: 'Start from a recent basket',
  recentBasketHelp: 'A basket a till sent, with its articles, time and customer card.',
  chooseBasket: '— choose —',
  articlesTitle: 'Articles of the basket',
  article: 'Article',
  articleHelp: 'Type a PLU or a name to pick from the sortiment.',
  pieces: 'Quantity',
  unitPrice: 'Price ({currency})',
  addArticle: 'Add article',
  removeArticle: 'Remove',
  basketTime: 'Time of the basket',
  basketTimeHelp: 'In {timeZone}; schedules and validity are checked at this time.',
  customerCard: 'Customer card or coupon code',
  customerCardHelp: 'Optional: a card id makes the basket a known customer’s (their points count).',
  advancedBasket: 'Advanced: the basket as JSON',
  notSaved: 'Not saved: please correct the marked field.',
  notTried: 'Not tried: please correct the marked field.',
  checkField: 'Please check this field.',
};

const DE: Record<keyof typeof EN, string> = {
  tiersTitle: 'Statusstufen',
  tiersOnly: 'Nur für Kundinnen und Kunden mit der Statusstufe {names} in „{scheme}“.',
  tiersOr: ' oder ',
  tiersHelp:
    'Es zählt die Stufe vor dem Einkauf. Eine Stufe, die das Programm nicht mehr hat, passt nie. Die Grenze ändern Sie unten im Formular (Nur für Statusstufen).',
  budgetTitle: 'Budget',
  budgetNone:
    'Kein Budget: die Aktion gibt ihre Rabatte ohne Grenze. Ein Budget lässt sich unten im Formular setzen.',
  budgetLimit: 'Grenze',
  budgetLeft: 'Jetzt übrig',
  budgetTotalRow: 'Rabatt insgesamt',
  budgetBasketsRow: 'Belohnte Einkäufe',
  budgetDayRow: 'Rabatt heute',
  budgetWeekRow: 'Rabatt diese Woche',
  budgetMonthRow: 'Rabatt diesen Monat',
  budgetSince: 'seit',
  budgetHelp:
    'Was gebuchte Einkäufe und Online-Bestellungen verbraucht haben, abzüglich Rückgaben und ganz erstatteter Bestellungen. Ein Rabatt, der über ein Budget ginge, wird nicht gegeben, und Kasse oder App zeigen ihn nicht an.',
  dryStacked: 'gestapelt auf den Rabatt darüber',
  dryHeldBack: 'von ihrem Budget zurückgehalten',
  dryStacks: 'Stapeln',
  dryTiers: 'Statusstufe des Beispielkunden',
  dryTiersHelp:
    'Probiert den Einkauf als Kunde in dieser Stufe, ohne eigene Punkte (eine Karte oben wird nicht gelesen). Eine gewählte Stufe bezieht die aktiven Aktionen und Programme ein.',
  dryNoTier: 'keine Stufe',
  paused: 'pausiert',
  startFrom: 'Mit einer Vorlage beginnen',
  startFromHelp: 'Füllt das Formular mit einer üblichen Aktion; vor dem Speichern ist alles änderbar.',
  blank: 'Leeres Formular',
  tplHappyHour: 'Happy Hour auf eine Gruppe',
  tplGroupPercent: 'x % auf eine Gruppe',
  tplBuyNGetOne: 'N kaufen, eins gratis',
  tplBillOver: 'Rabatt auf die Rechnung ab einem Betrag',
  nameHappyHour: 'Happy Hour',
  nameGroupPercent: '10 % auf eine Gruppe',
  nameBuyNGetOne: '2 kaufen, 1 gratis',
  nameBillOver: '5 Rabatt ab 30',
  stateTitle: 'Zustand',
  stateLive: 'Aktiv: die Kassen gewähren ihre Rabatte.',
  stateLiveBoth: 'Aktiv: sie gewährt ihre Rabatte an den Kassen und bei Online-Bestellungen.',
  stateLiveOnline: 'Aktiv: sie gewährt ihre Rabatte bei Online-Bestellungen.',
  stateLiveScheme: 'Aktiv: die Kassen vergeben seine Punkte und Prämien.',
  stateScheduled: 'Geplant: sie beginnt mit ihrer Gültigkeit.',
  statePaused:
    'Pausiert: sie gewährt nichts, weder an der Kasse noch bei Online-Bestellungen, bis Sie sie fortsetzen.',
  stateEnded: 'Beendet: sie gewährt nichts mehr und ist nicht mehr änderbar; ihre Zahlen bleiben.',
  pause: 'Pausieren',
  pauseHelp: 'Hält die Rabatte sofort an, etwa solange ein Artikel ausverkauft ist. Nichts geht verloren.',
  resume: 'Fortsetzen',
  resumeHelp: 'Die Rabatte gelten ab dem nächsten Warenkorb oder der nächsten Online-Bestellung wieder.',
  end: 'Beenden',
  endHelp: 'Beendet sie endgültig: danach weder fortsetzbar noch änderbar (ihre Zahlen bleiben).',
  pauseHelpScheme:
    'Hält seine Punkte und Prämien sofort an, etwa in einer Woche, in der der Laden zu ist. Nichts geht verloren.',
  resumeHelpScheme: 'Seine Punkte und Prämien gelten ab dem nächsten Warenkorb wieder.',
  endHelpScheme: 'Beendet es endgültig: danach weder fortsetzbar noch änderbar (seine Zahlen bleiben).',
  endConfirm: 'Diese Aktion endgültig beenden? Sie ist danach weder fortsetzbar noch änderbar.',
  endConfirmScheme: 'Dieses Treueprogramm endgültig beenden? Es ist danach weder fortsetzbar noch änderbar.',
  figures: 'Zahlen der letzten 30 Tage',
  uses: 'Einlösungen',
  usesHelp:
    'Anwendungen in gewährten Warenkörben, abzüglich Retouren, und in Online-Bestellungen (drei rabattierte Kaffees: drei).',
  cost: 'Kosten',
  costHelp: 'Die gewährten Rabatte und die der Online-Bestellungen, in {currency}.',
  basketsRewarded: 'Warenkörbe',
  ordersRewarded: 'Online-Bestellungen',
  purchasesRewarded: 'Warenkörbe und Online-Bestellungen',
  pointsEarned: 'Gesammelte Punkte',
  pointsRedeemed: 'Eingelöste Punkte',
  day: 'Tag',
  noFigures: 'In den letzten 30 Tagen hat kein gewährter Warenkorb und keine Online-Bestellung sie genutzt.',
  noFiguresWhy: 'Warum? Unten an Ihren letzten Warenkörben prüfen.',
  till: 'Kasse',
  tillHelp: 'Der Probelauf antwortet wie diese Kasse: ihre Filiale und die Artikelgruppen ihres Sortiments.',
  noTill: 'keine Kasse (keine Filiale)',
  recentBasket: 'Mit einem letzten Warenkorb beginnen',
  recentBasketHelp: 'Ein Warenkorb, den eine Kasse gesendet hat, mit Artikeln, Zeit und Kundenkarte.',
  chooseBasket: '— auswählen —',
  articlesTitle: 'Artikel des Warenkorbs',
  article: 'Artikel',
  articleHelp: 'PLU oder Namen tippen, um aus dem Sortiment zu wählen.',
  pieces: 'Menge',
  unitPrice: 'Preis ({currency})',
  addArticle: 'Artikel hinzufügen',
  removeArticle: 'Entfernen',
  basketTime: 'Zeit des Warenkorbs',
  basketTimeHelp: 'In {timeZone}; Zeitfenster und Gültigkeit werden zu dieser Zeit geprüft.',
  customerCard: 'Kundenkarte oder Gutscheincode',
  customerCardHelp:
    'Optional: eine Kartennummer macht den Warenkorb zu dem eines bekannten Kunden (seine Punkte zählen).',
  advancedBasket: 'Erweitert: der Warenkorb als JSON',
  notSaved: 'Nicht gespeichert: bitte das markierte Feld korrigieren.',
  notTried: 'Nicht ausprobiert: bitte das markierte Feld korrigieren.',
  checkField: 'Bitte dieses Feld prüfen.',
};

export type CampaignPageKey = keyof typeof EN;
export type CampaignPageTranslate = (key: CampaignPageKey) => string;

export function campaignPageTranslator(
  lang: PortalLang,
  fill: { currency: string; timeZone: string },
): CampaignPageTranslate {
  return (key) =>
    (lang === 'de' ? DE[key] : EN[key])
      .replace('{currency}', fill.currency)
      .replace('{timeZone}', fill.timeZone);
}

/**
 * What an owner reads beside a field the server refused, by the field's path without list
 * indexes (`schedule.from` for `schedule[0].from`): what the field takes, in the owner's words,
 * instead of the API's message.
 */
const FIELD_EN: Record<string, string> = {
  name: 'Give the campaign a name (up to 200 characters): tills and receipts show it.',
  type: 'Choose what the campaign rewards: articles, the bill, a quantity, or a combination.',
  discount: 'Choose a discount and enter its value.',
  'discount.percent': 'Enter a percentage above 0 and at most 100, like 20 or 12.5.',
  'discount.amount': 'Enter an amount above 0 in {currency}, like 2.50 (at most two decimals).',
  'discount.price':
    'Enter the new price in {currency}, like 4.90; the bill cannot get a new price: choose percent or amount.',
  products: 'Add the articles or groups that qualify (at least one row, or none for every article).',
  'products.plu': 'Enter the PLU of an article, or choose a group instead.',
  'products.group': 'Enter an article group, or choose an article instead.',
  combination: 'Add the parts of the deal: at least one article or group.',
  'combination.quantity': 'Enter how many pieces of this part, a whole number from 1.',
  buy: 'Enter how many pieces are bought, a whole number from 1.',
  get: 'Enter how many pieces come with them, a whole number from 1.',
  minTotal: 'Enter the amount the bill must reach in {currency}, like 30 (0 for none).',
  maxApplications: 'Enter how often it may apply per basket, a whole number from 1, or leave it empty.',
  couponCode: 'Enter the code customers show, or leave it empty for no code.',
  validFrom: 'Enter when it starts (date and time in {timeZone}), or leave it empty.',
  validTo: 'Enter when it ends, after its start (date and time in {timeZone}), or leave it empty.',
  schedule: 'Check the time windows: at least one weekday, from and to as HH:MM.',
  'schedule.days': 'Tick at least one weekday.',
  'schedule.from': 'Enter the start as HH:MM, like 15:00.',
  'schedule.to': 'Enter the end as HH:MM after the start, like 17:00 (24:00 for midnight).',
  outletIds: 'Choose at least one outlet, or none for every outlet.',
  channels: 'Choose the till, online orders, or both.',
  priority: 'Enter a whole number; higher runs first (0 if unsure).',
  usageLimitPerConsumer: 'Enter how often one customer may use it, a whole number from 1, or leave it empty.',
  earn: 'Add at least one way to collect points.',
  'earn.amount': 'Enter the amount spent per points in {currency}, like 1.',
  'earn.points': 'Enter the points, a whole number from 1.',
  'earn.products': 'Add the articles that collect points (none for every article).',
  reward: 'Check the reward: its cost in points and its discount.',
  'reward.threshold': 'Enter the points the reward costs, a whole number from 1.',
  'reward.products': 'Add the articles one of which is the reward.',
  'reward.discount': 'Choose the reward’s discount and enter its value.',
  'reward.discount.percent': 'Enter a percentage above 0 and at most 100, like 100 for free.',
  'reward.discount.amount': 'Enter an amount above 0 in {currency}, like 5.',
  'reward.discount.price': 'Enter the new price in {currency}, like 0.',
  stacking: 'Stacking applies to article discounts only: choose "as before" for this type.',
  'stacking.group': 'Enter the name of the stacking group, like spring.',
  'budget.total': 'Enter the total budget above 0 in {currency}, like 500, or leave it empty.',
  'budget.redemptions': 'Enter how many purchases it may reward, a whole number from 1, or leave it empty.',
  'budget.period': 'Choose per day, week or month for the budget per period, or none.',
  'budget.periodAmount': 'Enter the budget per period above 0 in {currency}, like 50.',
  tierBasis: 'Choose what the tiers go by, and add at least one tier; or choose no status tiers.',
  'tierBasis.measure': 'Choose points earned or spend, or no status tiers.',
  'tierBasis.period': 'Choose the last days or a calendar month, quarter or year.',
  'tierBasis.period.rollingDays': 'Enter the days, a whole number from 1 to 3,660, like 90.',
  'tiers.name': 'Give the tier a name not used by another tier of the scheme.',
  'tiers.threshold':
    'Enter a threshold above 0 and above the tier before: whole points, or an amount in {currency}.',
  'tiers.multiplier': 'Enter a multiplier from 1 to 10 with at most three decimals, like 1.5.',
  'tiers.schemeId': 'Choose a running loyalty scheme that has status tiers, or everyone.',
  'tiers.names':
    'Tick at least one tier of the scheme; a tier it no longer has cannot stay ticked (untick it).',
  pointsExpireAfterDays: 'Enter after how many days points expire, a whole number from 1, or leave it empty.',
};

const FIELD_DE: Record<string, string> = {
  name: 'Geben Sie der Aktion einen Namen (bis 200 Zeichen): Kassen und Belege zeigen ihn.',
  type: 'Wählen Sie, was die Aktion belohnt: Artikel, die Rechnung, eine Menge oder eine Kombination.',
  discount: 'Wählen Sie einen Rabatt und geben Sie seinen Wert ein.',
  'discount.percent': 'Geben Sie einen Prozentsatz über 0 und höchstens 100 ein, etwa 20 oder 12,5.',
  'discount.amount':
    'Geben Sie einen Betrag über 0 in {currency} ein, etwa 2,50 (höchstens zwei Nachkommastellen).',
  'discount.price':
    'Geben Sie den neuen Preis in {currency} ein, etwa 4,90; die Rechnung kann keinen neuen Preis bekommen: Prozent oder Betrag wählen.',
  products: 'Fügen Sie die Artikel oder Gruppen hinzu, die zählen (keine Zeile: jeder Artikel).',
  'products.plu': 'Geben Sie die PLU eines Artikels ein oder wählen Sie stattdessen eine Gruppe.',
  'products.group': 'Geben Sie eine Artikelgruppe ein oder wählen Sie stattdessen einen Artikel.',
  combination: 'Fügen Sie die Teile des Angebots hinzu: mindestens einen Artikel oder eine Gruppe.',
  'combination.quantity': 'Geben Sie die Stückzahl dieses Teils ein, eine ganze Zahl ab 1.',
  buy: 'Geben Sie ein, wie viele Stück gekauft werden, eine ganze Zahl ab 1.',
  get: 'Geben Sie ein, wie viele Stück dazukommen, eine ganze Zahl ab 1.',
  minTotal: 'Geben Sie den Betrag in {currency} ein, den die Rechnung erreichen muss, etwa 30 (0: keiner).',
  maxApplications:
    'Geben Sie ein, wie oft sie je Warenkorb gilt, eine ganze Zahl ab 1, oder lassen Sie das Feld leer.',
  couponCode: 'Geben Sie den Code ein, den Kunden vorzeigen, oder lassen Sie das Feld leer.',
  validFrom: 'Geben Sie den Beginn ein (Datum und Uhrzeit in {timeZone}) oder lassen Sie das Feld leer.',
  validTo:
    'Geben Sie das Ende nach dem Beginn ein (Datum und Uhrzeit in {timeZone}) oder lassen Sie das Feld leer.',
  schedule: 'Prüfen Sie die Zeitfenster: mindestens ein Wochentag, von und bis als HH:MM.',
  'schedule.days': 'Kreuzen Sie mindestens einen Wochentag an.',
  'schedule.from': 'Geben Sie den Beginn als HH:MM ein, etwa 15:00.',
  'schedule.to': 'Geben Sie das Ende als HH:MM nach dem Beginn ein, etwa 17:00 (24:00 für Mitternacht).',
  outletIds: 'Wählen Sie mindestens eine Filiale oder keine für alle Filialen.',
  channels: 'Wählen Sie die Kasse, Online-Bestellungen oder beides.',
  priority: 'Geben Sie eine ganze Zahl ein; höhere kommen zuerst (im Zweifel 0).',
  usageLimitPerConsumer:
    'Geben Sie ein, wie oft ein Kunde sie nutzen darf, eine ganze Zahl ab 1, oder lassen Sie das Feld leer.',
  earn: 'Fügen Sie mindestens eine Art hinzu, Punkte zu sammeln.',
  'earn.amount': 'Geben Sie den Umsatz je Punkte in {currency} ein, etwa 1.',
  'earn.points': 'Geben Sie die Punkte ein, eine ganze Zahl ab 1.',
  'earn.products': 'Fügen Sie die Artikel hinzu, die Punkte bringen (keine: jeder Artikel).',
  reward: 'Prüfen Sie die Prämie: ihre Kosten in Punkten und ihren Rabatt.',
  'reward.threshold': 'Geben Sie die Punkte ein, die die Prämie kostet, eine ganze Zahl ab 1.',
  'reward.products': 'Fügen Sie die Artikel hinzu, von denen einer die Prämie ist.',
  'reward.discount': 'Wählen Sie den Rabatt der Prämie und geben Sie seinen Wert ein.',
  'reward.discount.percent': 'Geben Sie einen Prozentsatz über 0 und höchstens 100 ein, etwa 100 für gratis.',
  'reward.discount.amount': 'Geben Sie einen Betrag über 0 in {currency} ein, etwa 5.',
  'reward.discount.price': 'Geben Sie den neuen Preis in {currency} ein, etwa 0.',
  stacking: 'Stapeln gilt nur für Artikelrabatte: wählen Sie für diesen Typ „wie bisher“.',
  'stacking.group': 'Geben Sie den Namen der Stapelgruppe ein, etwa Frühling.',
  'budget.total':
    'Geben Sie das Gesamtbudget über 0 in {currency} ein, etwa 500, oder lassen Sie das Feld leer.',
  'budget.redemptions':
    'Geben Sie ein, wie viele Einkäufe sie belohnen darf, eine ganze Zahl ab 1, oder lassen Sie das Feld leer.',
  'budget.period': 'Wählen Sie je Tag, Woche oder Monat für das Budget je Zeitraum, oder keines.',
  'budget.periodAmount': 'Geben Sie das Budget je Zeitraum über 0 in {currency} ein, etwa 50.',
  tierBasis:
    'Wählen Sie, wonach die Stufen gehen, und fügen Sie mindestens eine Stufe hinzu; oder wählen Sie keine Statusstufen.',
  'tierBasis.measure': 'Wählen Sie gesammelte Punkte oder Umsatz, oder keine Statusstufen.',
  'tierBasis.period': 'Wählen Sie die letzten Tage oder einen Kalendermonat, ein Quartal oder ein Jahr.',
  'tierBasis.period.rollingDays': 'Geben Sie die Tage ein, eine ganze Zahl von 1 bis 3.660, etwa 90.',
  'tiers.name': 'Geben Sie der Stufe einen Namen, den keine andere Stufe des Programms trägt.',
  'tiers.threshold':
    'Geben Sie eine Schwelle über 0 und über der vorigen Stufe ein: ganze Punkte, oder einen Betrag in {currency}.',
  'tiers.multiplier':
    'Geben Sie einen Faktor von 1 bis 10 mit höchstens drei Nachkommastellen ein, etwa 1,5.',
  'tiers.schemeId': 'Wählen Sie ein laufendes Treueprogramm mit Statusstufen, oder alle.',
  'tiers.names':
    'Kreuzen Sie mindestens eine Stufe des Programms an; eine Stufe, die es nicht mehr hat, kann nicht angekreuzt bleiben.',
  pointsExpireAfterDays:
    'Geben Sie ein, nach wie vielen Tagen Punkte verfallen, eine ganze Zahl ab 1, oder lassen Sie das Feld leer.',
};

/** The field messages of a language, with the merchant's currency and time zone filled in. */
export function fieldMessages(
  lang: PortalLang,
  fill: { currency: string; timeZone: string },
): Record<string, string> {
  const table = lang === 'de' ? FIELD_DE : FIELD_EN;
  return Object.fromEntries(
    Object.entries(table).map(([k, v]) => [
      k,
      v.replace('{currency}', fill.currency).replace('{timeZone}', fill.timeZone),
    ]),
  );
}
