import type { Kysely } from 'kysely';
import { receiptUrl } from '../receipts/receipt.store.js';
import { localDayOf } from '../reports/dashboard-period.store.js';
import { type OrderFilter, type OrderListing, searchOrders } from '../reports/order-search.store.js';
import { csvLine, typedText } from '../shared/csv.js';
import { currencyExponent, minorToMajorText } from '../shared/money.js';
import type { DB } from '../store/schema.js';
import { CSV_BATCH, pagedCsv } from './csv-export.js';

/**
 * The checkout orders a search finds, as CSV for the merchant's bookkeeping (docs/decisions.md,
 * "Finding checkout orders"): every order on every page, newest first as the list, one line each.
 */

const HEADER = [
  'day',
  'placedAt',
  'orderId',
  'basketId',
  'shopId',
  'shop',
  'profileId',
  'customer',
  'total',
  'charged',
  'refunded',
  'state',
  'currency',
  'receipt',
];

/**
 * One order's line: its day in the merchant's time zone, amounts in major units with a dot, its
 * receipt as a link a spreadsheet opens (the service's public address).
 */
function orderLine(o: OrderListing, timeZone: string, publicBaseUrl: string): string {
  const major = (minor: number) => minorToMajorText(minor, currencyExponent(o.currency));
  return csvLine([
    localDayOf(Date.parse(o.createdAt), timeZone).day,
    o.createdAt,
    o.orderId,
    typedText(o.basketId),
    String(o.clientId),
    typedText(o.shop),
    String(o.profileId),
    typedText(o.customerName),
    major(o.totalGrossMinor),
    major(o.chargedMinor),
    major(o.refundedMinor),
    o.state,
    o.currency,
    o.receiptId === null ? '' : receiptUrl(publicBaseUrl, o.receiptId),
  ]);
}

/** Every order the filter finds as CSV, a batch at a time. */
export function orderCsv(
  db: Kysely<DB>,
  filter: Omit<OrderFilter, 'limit' | 'after'>,
  timeZone: string,
  publicBaseUrl: string,
  batch = CSV_BATCH,
): AsyncGenerator<string> {
  return pagedCsv<OrderListing, OrderFilter['after']>(
    {
      header: HEADER,
      page: (after, limit) => searchOrders(db, { ...filter, limit, after }),
      keyOf: (o) => [Date.parse(o.createdAt), o.orderId],
      line: (o) => orderLine(o, timeZone, publicBaseUrl),
    },
    batch,
  );
}
