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
