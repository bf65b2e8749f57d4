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

/** The revision of article `i`: every `changedEvery`-th gets `revision`, or all do without `changedEvery`. */
function revisionOf(i: number, options: { revision?: number; changedEvery?: number }): number {
  if (options.changedEvery === undefined) return options.revision ?? 0;
  return i % options.changedEvery === 0 ? (options.revision ?? 1) : 0;
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
    parts.push(`${i === 0 ? '' : ','}${JSON.stringify(benchArticle(i, revisionOf(i, options), groups))}`);
  }
  parts.push(']}');
  return parts.join('');
}

type Texts = { lang: string; val: string }[];

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const textsXml = (list: Texts): string =>
  list
    .map((t) => `<LocalizedText><lang>${t.lang}</lang><val>${escapeXml(t.val)}</val></LocalizedText>`)
    .join('');
const arrayXml = (kind: 'int' | 'string', list: (number | string)[]): string =>
  list.map((v) => `<a:${kind}>${escapeXml(String(v))}</a:${kind}>`).join('');

/** One article of `benchArticle` as the POS interface's XML (DataContract style) writes it. */
function articleXml(article: Record<string, unknown>): string {
  const a = article as {
    PLU: string;
    Name: Texts;
    ExternalName: Texts;
    Description: Texts;
    Ingredients: Texts;
    GroupId: string;
    Rateable: boolean;
    SoldOut: boolean;
    PictureUrl: string;
    Prices: { Value: number; CurrencyIso: string; Tag?: { Name: Texts } }[];
    Allergens: number[];
    Traces: number[];
    Additives: number[];
    Tags: string[];
    WeightInGramms: number;
    NutritionFacts: Record<string, number>;
    VatInPercent: number;
    TakeawayVatInPercent: number;
  };
  const prices = a.Prices.map(
    (p) =>
      `<Price><Value>${p.Value}</Value><CurrencyIso>${p.CurrencyIso}</CurrencyIso>` +
      `${p.Tag ? `<Tag><Name>${textsXml(p.Tag.Name)}</Name></Tag>` : ''}</Price>`,
  ).join('');
  const facts = Object.entries(a.NutritionFacts)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('');
  return (
    `<Article><PLU>${a.PLU}</PLU><Name>${textsXml(a.Name)}</Name><ExternalName>${textsXml(a.ExternalName)}</ExternalName>` +
    `<Description>${textsXml(a.Description)}</Description><Ingredients>${textsXml(a.Ingredients)}</Ingredients>` +
    `<GroupId>${a.GroupId}</GroupId><Rateable>${a.Rateable}</Rateable><SoldOut>${a.SoldOut}</SoldOut>` +
    `<PictureUrl>${escapeXml(a.PictureUrl)}</PictureUrl><Prices>${prices}</Prices>` +
    `<Allergens>${arrayXml('int', a.Allergens)}</Allergens><Traces>${arrayXml('int', a.Traces)}</Traces>` +
    `<Additives>${arrayXml('int', a.Additives)}</Additives><Tags>${arrayXml('string', a.Tags)}</Tags>` +
    `<WeightInGramms>${a.WeightInGramms}</WeightInGramms><NutritionFacts>${facts}</NutritionFacts>` +
    `<VatInPercent>${a.VatInPercent}</VatInPercent><TakeawayVatInPercent>${a.TakeawayVatInPercent}</TakeawayVatInPercent></Article>`
  );
}

/** The same bulk upload as `bulkBodyJson`, in XML. */
export function bulkBodyXml(
  count: number,
  options: { revision?: number; changedEvery?: number; groups?: number } = {},
): string {
  const groups = options.groups ?? 50;
  const groupsXml = benchGroups(groups)
    .map((g) => {
      const group = g as { Id: string; Name: Texts; UpGroupId: string | null };
      const up = group.UpGroupId === null ? '' : `<UpGroupId>${group.UpGroupId}</UpGroupId>`;
      return `<Group><Id>${group.Id}</Id><Name>${textsXml(group.Name)}</Name>${up}</Group>`;
    })
    .join('');
  const parts: string[] = [
    '<BulkUpload xmlns:a="http://schemas.microsoft.com/2003/10/Serialization/Arrays">',
    `<Groups>${groupsXml}</Groups><Articles>`,
  ];
  for (let i = 0; i < count; i++) parts.push(articleXml(benchArticle(i, revisionOf(i, options), groups)));
  parts.push('</Articles></BulkUpload>');
  return parts.join('');
}
