import type { Kysely } from 'kysely';
import { localDayOf } from '../reports/dashboard-period.store.js';
import { type BasketFilter, type BasketListing, searchBaskets } from '../reports/basket-search.store.js';
import { csvLine, typedText } from '../shared/csv.js';
import { currencyExponent, minorToMajorText } from '../shared/money.js';
import type { DB } from '../store/schema.js';
import { CSV_BATCH, pagedCsv } from './csv-export.js';

/**
 * The baskets a search finds, as CSV (docs/decisions.md, "Finding baskets and customers"): every
 * basket on every page, newest first as the list, one line each.
 */

const HEADER = [
  'day',
  'time',
  'trackingUnitId',
  'terminal',
  'outletId',
  'outlet',
  'billNumber',
  'basketId',
  'card',
  'total',
  'tillTotal',
  'rewards',
  'state',
  'currency',
];

/** One basket's line: its day in the merchant's time zone, amounts in major units with a dot. */
function basketLine(b: BasketListing, timeZone: string): string {
  const major = (minor: number) => minorToMajorText(minor, currencyExponent(b.currency));
  return csvLine([
    localDayOf(Date.parse(b.timestamp), timeZone).day,
    b.timestamp,
    typedText(b.trackingUnitId),
    typedText(b.instanceName),
    String(b.outletId),
    typedText(b.outletName),
    typedText(b.billNumber),
    typedText(b.basketId),
    typedText(b.card),
    major(b.positionsTotalMinor),
    b.totalValueMinor === null ? '' : major(b.totalValueMinor),
    major(b.rewardMinor),
    b.state,
    b.currency,
  ]);
}

/** Every basket the filter finds as CSV, a batch at a time. */
export function basketCsv(
  db: Kysely<DB>,
  filter: Omit<BasketFilter, 'limit' | 'after'>,
  timeZone: string,
  batch = CSV_BATCH,
): AsyncGenerator<string> {
  return pagedCsv<BasketListing, BasketFilter['after']>(
    {
      header: HEADER,
      page: (after, limit) => searchBaskets(db, { ...filter, limit, after }),
      keyOf: (b) => [Date.parse(b.timestamp), b.trackingUnitId, b.basketId],
      line: (b) => basketLine(b, timeZone),
    },
    batch,
  );
}
