/**
 * A text as a LIKE / ILIKE pattern that matches it literally: `\`, `%` and `_` escaped with the
 * backslash, PostgreSQL's default escape character. The caller adds the wildcards it means.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
