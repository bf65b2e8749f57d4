/**
 * A text as a LIKE / ILIKE pattern that matches it literally: `\`, `%` and `_` escaped with the
 * backslash, PostgreSQL's default escape character. The caller adds the wildcards it means.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Latin letters with no decomposition that readers still take for their plain letter. */
const UNDECOMPOSED: Readonly<Record<string, string>> = {
  Ø: 'O',
  ø: 'o',
  Đ: 'D',
  đ: 'd',
  Ł: 'L',
  ł: 'l',
  ı: 'i',
};

/**
 * Each plain letter (lower case) with the accented letters a search reads as it, of either case:
 * those of Latin-1 Supplement and Latin Extended-A whose decomposition, or UNDECOMPOSED, is that
 * letter (é, È and ě for e; ł for l). Letters that stand for two (ß, æ, œ) are left as they are.
 */
const ACCENTED = ((): ReadonlyMap<string, string> => {
  const byPlain = new Map<string, string>();
  for (let code = 0xc0; code <= 0x17f; code++) {
    const c = String.fromCharCode(code);
    const plain = UNDECOMPOSED[c] ?? c.normalize('NFD').replace(/\p{M}/gu, '');
    if (plain === c || !/^[A-Za-z]$/.test(plain)) continue;
    const key = plain.toLowerCase();
    byPlain.set(key, (byPlain.get(key) ?? '') + c);
  }
  return byPlain;
})();

/** The plain letter (lower case) each accented letter of ACCENTED stands for. */
const PLAIN = new Map(
  [...ACCENTED].flatMap(([plain, accented]) => [...accented].map((c) => [c, plain] as const)),
);

/**
 * A PostgreSQL regular expression (for `~*`, case-insensitive) that finds the text anywhere,
 * reading accented Latin letters as their plain letter on both sides: "cafe" and "CAFÉ" both find
 * "Café crème", "muller" finds "Müller" (docs/decisions.md, "Searches read accented letters as
 * plain ones"). Every other character stands for itself.
 */
export function accentInsensitivePattern(text: string): string {
  let out = '';
  for (const c of text) {
    const plain = PLAIN.get(c) ?? c.toLowerCase();
    const accented = plain.length === 1 && plain >= 'a' && plain <= 'z' ? ACCENTED.get(plain) : undefined;
    if (accented !== undefined) out += `[${plain}${plain.toUpperCase()}${accented}]`;
    else out += /[\\^$.|?*+()[\]{}]/.test(c) ? `\\${c}` : c;
  }
  return out;
}
