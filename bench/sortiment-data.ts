/**
 * Realistic sortiment articles for the benchmark and the crash test: every field of the document,
 * about 600 bytes of JSON each. Deterministic: the same (index, revision) gives the same article.
 */

const WORDS = [
  'Weizen',
  'Hefe',
  'Pils',
  'Helles',
  'Kaffee',
  'Latte',
  'Torte',
  'Brezel',
  'Salat',
  'Suppe',
  'Schnitzel',
  'Pommes',
  'Wasser',
  'Saft',
  'Tee',
  'Kuchen',
];

function word(n: number): string {
  return WORDS[n % WORDS.length] ?? 'Artikel';
}

export function groupIds(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `G${String(i).padStart(3, '0')}`);
}

export function benchGroups(count: number): Record<string, unknown>[] {
  // Ten top-level groups; the others hang below them.
  return groupIds(count).map((id, i) => ({
    Id: id,
    Name: [
      { lang: 'de', val: `Gruppe ${word(i)} ${i}` },
      { lang: 'en', val: `Group ${i}` },
    ],
    UpGroupId: i < 10 ? null : `G${String(i % 10).padStart(3, '0')}`,
  }));
}

export function benchArticle(i: number, revision = 0, groups = 50): Record<string, unknown> {
  const plu = `PLU-${String(i).padStart(7, '0')}`;
  const cents = 99 + ((i * 37 + revision * 11) % 2400);
  return {
    PLU: plu,
    Name: [
      { lang: 'de', val: `${word(i)} ${word(i + 3)} Nr. ${i}${revision ? ` r${revision}` : ''}` },
      { lang: 'en', val: `${word(i + 5)} item ${i}` },
    ],
    ExternalName: [{ lang: 'de', val: `${word(i + 7)} Spezial ${i}` }],
    Description: [
      {
        lang: 'de',
        val: `Hausgemacht mit ${word(i + 1)} und ${word(i + 2)}, frisch zubereitet, serviert mit ${word(i + 9)}.`,
      },
    ],
    Ingredients: [{ lang: 'de', val: `${word(i + 4)}, ${word(i + 6)}, Salz, Pfeffer` }],
    GroupId: `G${String(i % groups).padStart(3, '0')}`,
    Rateable: i % 3 === 0,
    SoldOut: false,
    PictureUrl: `https://cdn.example.com/img/${plu}.jpg`,
    Prices: [
      { Value: cents / 100, CurrencyIso: 'EUR' },
      {
        Value: Math.max(cents - 50, 1) / 100,
        CurrencyIso: 'EUR',
        Tag: { Name: [{ lang: 'de', val: 'Happy Hour' }] },
      },
    ],
    Allergens: [1 + (i % 14), 1 + ((i + 5) % 14)],
    Traces: [1 + ((i + 3) % 14)],
    Additives: [330 + (i % 5)],
    Tags: ['menu', word(i).toLowerCase()],
    WeightInGramms: 100 + (i % 900),
    NutritionFacts: { Fats: 3.5, Carbs: 20.1, Protein: 7.2, KJoule: 800 + (i % 100), KCal: 190 + (i % 25) },
    VatInPercent: 19,
    TakeawayVatInPercent: 7,
  };
}

/**
 * The JSON text of a bulk upload body of `count` articles, written piece by piece so that the
 * generator itself needs little memory. `changedEvery`: every n-th article gets a new revision.
 */
export function bulkBodyJson(
  count: number,
  options: { revision?: number; changedEvery?: number; groups?: number } = {},
): string {
  const groups = options.groups ?? 50;
  const parts: string[] = [`{"Groups":${JSON.stringify(benchGroups(groups))},"Articles":[`];
  for (let i = 0; i < count; i++) {
    const changed = options.changedEvery !== undefined && i % options.changedEvery === 0;
    const revision = changed
      ? (options.revision ?? 1)
      : options.changedEvery === undefined
        ? (options.revision ?? 0)
        : 0;
    parts.push(`${i === 0 ? '' : ','}${JSON.stringify(benchArticle(i, revision, groups))}`);
  }
  parts.push(']}');
  return parts.join('');
}
