/**
 * Allergen and trace codes of docs/decisions.md, "Sortiment": the order of annex II of the EU
 * food-information regulation. Unknown codes are kept and shown as their number.
 */
const NAMES: Readonly<Record<'en' | 'de', readonly string[]>> = {
  en: [
    'Cereals containing gluten',
    'Crustaceans',
    'Eggs',
    'Fish',
    'Peanuts',
    'Soybeans',
    'Milk',
    'Nuts',
    'Celery',
    'Mustard',
    'Sesame',
    'Sulphites',
    'Lupin',
    'Molluscs',
  ],
  de: [
    'Glutenhaltiges Getreide',
    'Krebstiere',
    'Eier',
    'Fisch',
    'Erdnüsse',
    'Soja',
    'Milch',
    'Schalenfrüchte',
    'Sellerie',
    'Senf',
    'Sesam',
    'Schwefeldioxid und Sulfite',
    'Lupinen',
    'Weichtiere',
  ],
};

export type MenuLanguage = keyof typeof NAMES;

/**
 * The language of the names: the `lang` query parameter, else the first language of
 * Accept-Language that we have, else English.
 */
export function menuLanguage(lang: string | undefined, acceptLanguage: string | undefined): MenuLanguage {
  const candidates: string[] = [];
  if (lang) candidates.push(lang);
  if (acceptLanguage) {
    const ranked = acceptLanguage
      .split(',')
      .map((part, i) => {
        const [tag = '', ...params] = part.trim().split(';');
        const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
        return { tag: tag.trim(), q: q ? Number(q.slice(2)) : 1, i };
      })
      .filter((x) => x.tag !== '' && Number.isFinite(x.q) && x.q > 0)
      .sort((a, b) => b.q - a.q || a.i - b.i);
    candidates.push(...ranked.map((x) => x.tag));
  }
  for (const c of candidates) {
    const primary = c.toLowerCase().split(/[-_]/)[0];
    if (primary === 'en' || primary === 'de') return primary;
  }
  return 'en';
}

export interface CodeName {
  Code: number;
  Name: string;
}

/** Allergen or trace codes with their names; an unknown code is named by its number. */
export function allergenNames(codes: readonly number[], language: MenuLanguage): CodeName[] {
  return codes.map((code) => ({ Code: code, Name: NAMES[language][code - 1] ?? String(code) }));
}

/** Additive codes are E-numbers: 330 is E330. */
export function additiveNames(codes: readonly number[]): CodeName[] {
  return codes.map((code) => ({ Code: code, Name: `E${code}` }));
}
