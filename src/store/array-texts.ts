/**
 * A PostgreSQL array literal of integers, texts and NULLs, as the driver would write it for an
 * array parameter (each text quoted, `"` and `\` escaped by a backslash), built in one pass. Handed
 * a text, the driver sends it as it is; handed an array, it turns every element into text again
 * and escapes each with two regular expressions. Numbers must be integers (ids, minor units,
 * minutes).
 */
export function arrayLiteral(values: readonly (string | number | null)[]): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) text += ',';
    const v = values[i] ?? null;
    if (v === null) text += 'NULL';
    else if (typeof v === 'number') text += String(v);
    else text += `"${ESCAPED.test(v) ? v.replace(ESCAPED_ALL, '\\$&') : v}"`;
  }
  return `${text}}`;
}

const ESCAPED = /["\\]/;
const ESCAPED_ALL = /["\\]/g;
