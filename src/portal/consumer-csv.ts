import type { Kysely } from 'kysely';
import { localDayOf } from '../reports/dashboard-period.store.js';
import { type ConsumerExport, consumersForExport } from '../reports/consumer-search.store.js';
import { csvLine, typedText } from '../shared/csv.js';
import { currencyExponent, minorToMajorText } from '../shared/money.js';
import type { DB } from '../store/schema.js';
import { CSV_BATCH, pagedCsv } from './csv-export.js';

/**
 * The customers a search finds, or all of them, as CSV (docs/decisions.md, "All customers, page by
 * page"): every customer on every page, by id as the list, one line each.
 */

const HEADER = [
  'profileId',
  'name',
  'email',
  'language',
  'balance',
  'currency',
  'points',
  'cards',
  'createdDay',
];

/** One customer's line: the balance in major units with a dot, the cards by a space, the day they were made in the merchant's time zone. */
function consumerLine(c: ConsumerExport, timeZone: string): string {
  return csvLine([
    String(c.profileId),
    typedText(c.fullName),
    typedText(c.email),
    c.language ?? '',
    minorToMajorText(c.balanceMinor, currencyExponent(c.currency)),
    c.currency,
    String(c.points),
    typedText(c.cards.join(' ')),
    localDayOf(c.createdAt.getTime(), timeZone).day,
  ]);
}

/** Every customer the text finds (all without one) as CSV, a batch at a time. */
export function consumerCsv(
  db: Kysely<DB>,
  find: { merchantId: number; text: string | null; nowMs: number },
  timeZone: string,
  batch = CSV_BATCH,
): AsyncGenerator<string> {
  return pagedCsv<ConsumerExport, number>(
    {
      header: HEADER,
      page: (after, limit) =>
        consumersForExport(db, find.merchantId, find.text, find.nowMs, {
          limit,
          after: after === null ? null : [after],
        }),
      keyOf: (c) => c.profileId,
      line: (c) => consumerLine(c, timeZone),
    },
    batch,
  );
}
