import { expect } from 'vitest';

/** The fields of a CSV line, its quoted fields read back (RFC 4180). */
export function fieldsOf(line: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at <= line.length) {
    if (line[at] === '"') {
      let value = '';
      let i = at + 1;
      for (;;) {
        const quote = line.indexOf('"', i);
        if (line[quote + 1] === '"') {
          value += `${line.slice(i, quote)}"`;
          i = quote + 2;
        } else {
          value += line.slice(i, quote);
          at = quote + 2;
          break;
        }
      }
      out.push(value);
    } else {
      const comma = line.indexOf(',', at);
      const end = comma === -1 ? line.length : comma;
      out.push(line.slice(at, end));
      at = end + 1;
    }
  }
  return out;
}

/**
 * A portal CSV answer read back: 200, CSV of UTF-8, downloaded as `filename`, every line ending in
 * CRLF, the header first; its text and its lines' fields.
 */
export function csvAnswer(
  res: { statusCode: number; body: string; headers: Record<string, unknown> },
  filename: string,
  header: string,
): { body: string; lines: string[][] } {
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.headers['content-disposition']).toBe(`attachment; filename="${filename}"`);
  expect(res.body.endsWith('\r\n')).toBe(true);
  const [first, ...lines] = res.body.slice(0, -2).split('\r\n');
  expect(first).toBe(header);
  return { body: res.body, lines: lines.map(fieldsOf) };
}
