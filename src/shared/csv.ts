/**
 * CSV as spreadsheets read it (RFC 4180): fields separated by commas, lines by CRLF, a field quoted
 * when it holds a separator, a quote or a line break.
 */

/** A CSV field: quoted when it holds a separator, a quote or a line break. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * A text someone typed (a terminal's, an outlet's, a shop's or a customer's name, a key a shop
 * chose): never read as a formula by a spreadsheet, so one starting with = + - @ or a tab gets a
 * leading apostrophe.
 */
export function typedText(value: string | null): string {
  if (value === null) return '';
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** One CSV line of these fields, without its line break. */
export function csvLine(fields: readonly string[]): string {
  return fields.map(csvField).join(',');
}
