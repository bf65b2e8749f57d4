import { Type } from 'typebox';
import { Nullable } from '../wire/schemas.js';

/** POS v3 sortiment documents (field casing as in the documents), for validation, XML and OpenAPI. */

export const SortimentParams = Type.Object({
  serviceSortimentId: Type.String({ maxLength: 40, description: 'From GET /sortiments.' }),
});

const LocalText = Type.Object(
  {
    lang: Type.Optional(Type.String({ maxLength: 35, description: 'Language tag (de, en, ...).' })),
    val: Type.Optional(Type.String({ maxLength: 10_000 })),
  },
  { xml: { name: 'LocalizedText' } },
);

const LocalTexts = (description: string) => Type.Array(LocalText, { maxItems: 1000, description });

const Codes = (description: string) =>
  Type.Array(Type.Integer({ minimum: 0, xml: { name: 'int' } }), { maxItems: 1000, description });

const Key = (description: string) => Type.String({ maxLength: 100, description });

export const GroupSchema = Type.Object(
  {
    Id: Type.Optional(Key('Group id; equals the Id of the path when given.')),
    Name: Type.Optional(LocalTexts('Localised name.')),
    UpGroupId: Type.Optional(Nullable(Key('Parent group; must exist (12003); no cycles (1000).'))),
  },
  { xml: { name: 'Group' }, title: 'Group' },
);

const PriceSchema = Type.Object(
  {
    Value: Type.Number({
      minimum: 0,
      description: 'Decimal in the major unit (12.5 is 12.50 EUR), no more decimals than the currency has.',
    }),
    CurrencyIso: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{3}$',
        description: "ISO 4217; the merchant's currency when absent.",
      }),
    ),
    Tag: Type.Optional(
      Type.Object(
        { Name: Type.Optional(LocalTexts('Name of the price variant.')) },
        { xml: { name: 'Tag' } },
      ),
    ),
  },
  { xml: { name: 'Price' } },
);

const NutritionSchema = Type.Object(
  {
    Fats: Type.Optional(Type.Number({ minimum: 0 })),
    Carbs: Type.Optional(Type.Number({ minimum: 0 })),
    Protein: Type.Optional(Type.Number({ minimum: 0 })),
    KJoule: Type.Optional(Type.Number({ minimum: 0 })),
    KCal: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { xml: { name: 'NutritionFacts' } },
);

const Rate = (description: string) => Type.Number({ minimum: 0, maximum: 100, description });

const articleFields = {
  PLU: Type.Optional(Key('Article key; required (12008); equals the PLU of the path.')),
  Name: Type.Optional(LocalTexts('Localised name; a value in at least one language is required (12005).')),
  GroupId: Type.Optional(Key('Product group; cannot be changed by an update (12007).')),
  Rateable: Type.Optional(Type.Boolean()),
  ExternalName: Type.Optional(LocalTexts('Public name.')),
  Description: Type.Optional(LocalTexts('Description.')),
  Ingredients: Type.Optional(LocalTexts('Ingredients.')),
  SoldOut: Type.Optional(Type.Boolean()),
  PictureUrl: Type.Optional(Type.String({ maxLength: 2000 })),
  Prices: Type.Optional(Type.Array(PriceSchema, { maxItems: 1000 })),
  Allergens: Type.Optional(
    Codes(
      'Allergen codes 1 to 14 (EU annex II order: 1 gluten, 2 crustaceans, 3 eggs, 4 fish, 5 peanuts, 6 soybeans, 7 milk, 8 nuts, 9 celery, 10 mustard, 11 sesame, 12 sulphites, 13 lupin, 14 molluscs).',
    ),
  ),
  Traces: Type.Optional(Codes('Trace codes, as allergens.')),
  Additives: Type.Optional(Codes('Additive codes: the number of the E-number (330 is E330).')),
  Tags: Type.Optional(
    Type.Array(Type.String({ maxLength: 200, xml: { name: 'string' } }), { maxItems: 1000 }),
  ),
  WeightInGramms: Type.Optional(Type.Number({ minimum: 0 })),
  NutritionFacts: Type.Optional(NutritionSchema),
  VatInPercent: Type.Optional(Rate('VAT rate on premise (checkout pricing).')),
  TakeawayVatInPercent: Type.Optional(Rate('VAT rate for takeaway (checkout pricing).')),
};

export const ArticleSchema = Type.Object(articleFields, { xml: { name: 'Article' }, title: 'Article' });

const CodeName = (item: string) =>
  Type.Array(Type.Object({ Code: Type.Integer(), Name: Type.String() }, { xml: { name: item } }));

/** An article as the reads give it: the document's fields plus named codes for menus. */
export const ArticleOutSchema = Type.Object(
  {
    ...articleFields,
    PLU: Type.String(),
    Prices: Type.Array(PriceSchema),
    AllergenInfo: CodeName('Allergen'),
    TraceInfo: CodeName('Trace'),
    AdditiveInfo: CodeName('Additive'),
  },
  { xml: { name: 'Article' }, title: 'ArticleOut' },
);

export const ArticlePageSchema = Type.Object(
  {
    Page: Type.Integer(),
    PageSize: Type.Integer(),
    Total: Type.Integer({ description: 'Number of articles (of the group, when filtered).' }),
    Articles: Type.Array(ArticleOutSchema),
  },
  { xml: { name: 'ArticlePage' }, title: 'ArticlePage' },
);

export const SortimentSchema = Type.Object(
  {
    serviceSortimentId: Type.String({ description: 'Decimal text of the numeric id; used in the paths.' }),
    thirdPartySortimentIdentifier: Type.String(),
    Name: Type.Union([Type.String(), Type.Null()]),
    menuId: Type.Integer({ description: 'The same number, for checkout orders.' }),
  },
  { xml: { name: 'Sortiment' }, title: 'Sortiment' },
);

export const BulkBodySchema = Type.Object(
  {
    Groups: Type.Optional(
      Type.Array(
        Type.Unknown({ description: 'A group, as in the group operations: {Id, Name, UpGroupId}.' }),
        {
          description:
            'Groups. With changedArticlesOnly=false they replace the stored groups; absent keeps them.',
        },
      ),
    ),
    Articles: Type.Optional(
      Type.Array(Type.Unknown({ description: 'An article, as in the article operations.' }), {
        description: 'Articles; with changedArticlesOnly=false the whole sortiment.',
      }),
    ),
  },
  { xml: { name: 'BulkUpload' }, title: 'BulkUpload' },
);

export const BulkResultSchema = Type.Object(
  {
    Created: Type.Integer(),
    Updated: Type.Integer(),
    Deleted: Type.Integer(),
    Unchanged: Type.Integer(),
  },
  { xml: { name: 'BulkUploadResult' }, title: 'BulkUploadResult', description: 'Counts of articles.' },
);
