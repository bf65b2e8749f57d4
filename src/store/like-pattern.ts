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
 * Letters spelled with two plain letters: German's umlauts and ß (Mueller for Müller, Weiss for
 * Weiß) and the ligatures æ and œ (oeuf for œuf), which a search reads as the one letter and the
 * one letter as them.
 */
const DIGRAPHS: Readonly<Record<string, string>> = { ae: 'äÄæÆ', oe: 'öÖœŒ', ue: 'üÜ', ss: 'ß' };
const DIGRAPH_OF: Readonly<Record<string, string>> = {
  ä: 'ae',
  Ä: 'ae',
  æ: 'ae',
  Æ: 'ae',
  ö: 'oe',
  Ö: 'oe',
  œ: 'oe',
  Œ: 'oe',
  ü: 'ue',
  Ü: 'ue',
  ß: 'ss',
};

/** The letters of DIGRAPH_OF that are no accented form of a plain letter: they match only themselves. */
const LIGATURES: Readonly<Record<string, string>> = { ß: 'ß', æ: 'æÆ', Æ: 'æÆ', œ: 'œŒ', Œ: 'œŒ' };

/** One letter's class: the plain letter in both cases and its accented forms; null for other characters. */
function letterClass(c: string): string | null {
  const plain = PLAIN.get(c) ?? c.toLowerCase();
  const accented = plain.length === 1 && plain >= 'a' && plain <= 'z' ? ACCENTED.get(plain) : undefined;
  return accented === undefined ? null : `[${plain}${plain.toUpperCase()}${accented}]`;
}

/** The character as the pattern reads it: its letter class, or itself, escaped where it means something. */
function single(c: string): string {
  return letterClass(c) ?? (/[\\^$.|?*+()[\]{}]/.test(c) ? `\\${c}` : c);
}

/**
 * A PostgreSQL regular expression (for `~*`, case-insensitive) that finds the text anywhere,
 * reading accented Latin letters as their plain letter on both sides ("cafe" and "CAFÉ" both find
 * "Café crème", "muller" finds "Müller"), and two-letter spellings (German's umlauts and ß, the
 * ligatures æ and œ) as the letter they stand for, both ways ("mueller" finds "Müller", "müller"
 * finds "Mueller", "weiss" finds "Weiß", "oeuf" finds "Œuf"; docs/decisions.md, "Searches read
 * accented letters as plain ones"). Every other character stands
 * for itself.
 */
export function accentInsensitivePattern(text: string): string {
  const chars = [...text];
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    const pair = `${PLAIN.get(c) ?? c}${PLAIN.get(chars[i + 1] ?? '') ?? chars[i + 1] ?? ''}`.toLowerCase();
    const umlaut = DIGRAPHS[pair];
    if (umlaut !== undefined && pair.length === 2) {
      out += `(?:${single(c)}${single(chars[i + 1] as string)}|[${umlaut}])`;
      i += 1;
      continue;
    }
    const spelled = DIGRAPH_OF[c];
    if (spelled !== undefined) {
      const [first = '', second = ''] = spelled;
      const ligature = LIGATURES[c];
      const own = ligature === undefined ? single(c) : `[${ligature}]`;
      out += `(?:${own}|${single(first)}${single(second)})`;
      continue;
    }
    out += single(c);
  }
  return out;
}
