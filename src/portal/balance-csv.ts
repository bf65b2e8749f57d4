import type { StoredBalance } from '../reports/dashboard-balance.store.js';
import { csvLine } from '../shared/csv.js';
import { currencyExponent, minorToMajorText } from '../shared/money.js';

/**
 * The customers' stored balance day by day as CSV (docs/decisions.md, "The customers' stored
 * balance on the dashboard"): per day what was held at its start, each kind of move and what was
 * held at its end, amounts in major units with a dot, taken-off moves as positive amounts as on
 * the page, so that opening + loaded − paid + topUps − ordersCharged + ordersRefunded + corrections
 * = closing on every line, and each line's closing is the next one's opening. No lines but the
 * header for a merchant whose customers never held money.
 */
export function storedBalanceCsv(b: StoredBalance | null, currency: string): string {
  const exponent = currencyExponent(currency);
  const major = (minor: number) => minorToMajorText(minor, exponent);
  const lines = [
    csvLine([
      'day',
      'opening',
      'tillLoaded',
      'tillPaid',
      'topUps',
      'ordersCharged',
      'ordersRefunded',
      'corrections',
      'closing',
      'currency',
    ]),
    ...(b?.days ?? []).map((d) =>
      csvLine([
        d.day,
        major(d.openingMinor),
        major(d.tillLoadedMinor),
        major(d.tillPaidMinor),
        major(d.topUpsMinor),
        major(d.ordersChargedMinor),
        major(d.ordersRefundedMinor),
        major(d.correctionsMinor),
        major(d.closingMinor),
        currency,
      ]),
    ),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
