import type { Kysely } from 'kysely';
import { receiptPath } from '../receipts/receipt.store.js';
import { localDayOf } from '../reports/dashboard-period.store.js';
import { type OrderFilter, type OrderListing, searchOrders } from '../reports/order-search.store.js';
import { csvLine, typedText } from '../shared/csv.js';
import { currencyExponent, minorToMajorText } from '../shared/money.js';
import type { DB } from '../store/schema.js';

/**
 * The checkout orders a search finds, as CSV for the merchant's bookkeeping (docs/decisions.md,
 * "Finding checkout orders"): every order on every page, newest first as the list, one line each.
 */

/** The orders read from the database at a time: the export's memory does not grow with its length. */
export const ORDER_CSV_BATCH = 1_000;

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

/** One order's line: its day in the merchant's time zone, amounts in major units with a dot. */
function orderLine(o: OrderListing, timeZone: string): string {
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
    o.receiptId === null ? '' : receiptPath(o.receiptId),
  ]);
}

/** The CSV's text, the header first, a batch of orders at a time, each line ending in CRLF. */
export async function* orderCsv(
  db: Kysely<DB>,
  filter: Omit<OrderFilter, 'limit' | 'after'>,
  timeZone: string,
  batch = ORDER_CSV_BATCH,
): AsyncGenerator<string> {
  yield `${HEADER.join(',')}\r\n`;
  let after: OrderFilter['after'] = null;
  for (;;) {
    // The store answers one order beyond the batch when there are more.
    const rows = await searchOrders(db, { ...filter, limit: batch, after });
    const shown = rows.slice(0, batch);
    if (shown.length > 0) yield `${shown.map((o) => orderLine(o, timeZone)).join('\r\n')}\r\n`;
    const last = shown.at(-1);
    if (rows.length <= batch || last === undefined) return;
    after = [Date.parse(last.createdAt), last.orderId];
  }
}
