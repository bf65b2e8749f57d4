import type { PortalLang } from '../portal-users/portal-user.store.js';

/** The texts of the checkout order search, in English and German. */
const EN = {
  number: 'Order id or the shop’s basketId',
  orderNumber: 'Order',
  shop: 'Shop',
  allShops: 'All shops',
  customer: 'Customer',
  charged: 'Charged',
  refunded: 'Refunded',
  receipt: 'Receipt',
  anyState: 'Any state',
  stateCompleted: 'Completed',
  statePartly: 'Partly refunded',
  stateRefunded: 'Refunded',
  noOrderFound: 'No order matches. Check the number, or widen the days and filters.',
  noOrders:
    'No checkout orders yet. Ordering apps and web shops place them through the checkout interface (Developers).',
  found: 'Orders on this page: {n}; {total} ordered, {charged} charged, {refunded} refunded.',
  onlyCustomer: 'Only the orders of',
  allOrders: 'All orders',
  nextPage: 'Next page',
  firstPage: 'First page',
};

const DE: Record<OrderKey, string> = {
  number: 'Bestell-ID oder basketId des Shops',
  orderNumber: 'Bestellung',
  shop: 'Shop',
  allShops: 'Alle Shops',
  customer: 'Kunde',
  charged: 'Belastet',
  refunded: 'Erstattet',
  receipt: 'Beleg',
  anyState: 'Jeder Status',
  stateCompleted: 'Abgeschlossen',
  statePartly: 'Teilweise erstattet',
  stateRefunded: 'Erstattet',
  noOrderFound: 'Keine Bestellung gefunden. Prüfen Sie die Nummer, oder erweitern Sie Tage und Filter.',
  noOrders:
    'Noch keine Bestellungen. Bestell-Apps und Webshops geben sie über die Checkout-Schnittstelle auf (Entwickler).',
  found: 'Bestellungen auf dieser Seite: {n}; {total} bestellt, {charged} belastet, {refunded} erstattet.',
  onlyCustomer: 'Nur die Bestellungen von',
  allOrders: 'Alle Bestellungen',
  nextPage: 'Nächste Seite',
  firstPage: 'Erste Seite',
};

export type OrderKey = keyof typeof EN;
export type OrderTranslate = (key: OrderKey, values?: Record<string, string>) => string;

export function orderTranslator(lang: PortalLang): OrderTranslate {
  return (key, values = {}) =>
    (lang === 'de' ? DE[key] : EN[key]).replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? `{${k}}`);
}
