import { hash } from 'node:crypto';
import type { ErrorName } from '../shared/errors.js';
import {
  currencyExponent,
  decimalPlaces,
  decimalToMinor,
  minorOfNumber,
  minorToMajor,
  parseDecimal,
} from '../shared/money.js';

/**
 * An article of a sortiment: reading it from the wire (JSON or XML, already normalised to the
 * documents' field names), its canonical stored form, and writing it back out.
 *
 * The stored form is built field by field in a fixed order, so its JSON text is canonical and its
 * hash tells a bulk upload whether an article changed. Prices are integer minor units.
 */

export interface LocalText {
  lang: string;
  val: string;
}

export interface StoredPrice {
  ValueMinor: number;
  CurrencyIso: string;
  Tag: { Name: LocalText[] } | null;
}

export interface NutritionFacts {
  Fats: number | null;
  Carbs: number | null;
  Protein: number | null;
  KJoule: number | null;
  KCal: number | null;
}

export interface StoredArticle {
  PLU: string;
  GroupId: string | null;
  Name: LocalText[];
  ExternalName: LocalText[];
  Description: LocalText[];
  Ingredients: LocalText[];
  Rateable: boolean | null;
  SoldOut: boolean | null;
  PictureUrl: string | null;
  Prices: StoredPrice[];
  Allergens: number[];
  Traces: number[];
  Additives: number[];
  Tags: string[];
  WeightInGramms: number | null;
  NutritionFacts: NutritionFacts | null;
  /** Exact decimal text of the VAT rate on premise ("19", "7.7"). */
  VatInPercent: string | null;
  TakeawayVatInPercent: string | null;
}

/** A failed item: the catalogued error and what exactly is wrong. */
export interface ItemError {
  readonly error: ErrorName;
  readonly detail: string;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: ItemError };

export const LIMITS = {
  pluLength: 100,
  groupIdLength: 100,
  langLength: 35,
  textLength: 10_000,
  urlLength: 2_000,
  arrayItems: 1_000,
} as const;

class Invalid extends Error {
  constructor(
    readonly error: ErrorName,
    readonly detail: string,
  ) {
    super(detail);
  }
}

function fail(detail: string, error: ErrorName = 'invalidBody'): never {
  throw new Invalid(error, detail);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Field `name` of `o`, with the documents' names matched case-insensitively (docs/decisions.md,
 * "Field names"), so that a JSON item needs no normalised copy: the exact name is tried first, and
 * only a miss compares the object's names lower-cased (the last that matches counts). A plain
 * function rather than an accessor made per object: a bulk upload reads some fifteen objects per
 * article, and making an accessor for each cost about a quarter of checking an article
 * (docs/performance.md, "Sortiment bulk upload").
 */
function fieldOf(o: Record<string, unknown>, name: string): unknown {
  const v = o[name];
  if (v !== undefined) return v;
  const lower = name.toLowerCase();
  let found: unknown;
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) found = o[k];
  return found;
}

function absent(v: unknown): boolean {
  return v === undefined || v === null;
}

/** A key: text, or a whole number that a till sent unquoted. */
export function readKey(v: unknown, field: string, max: number): string | null {
  if (absent(v)) return null;
  let text: string;
  if (typeof v === 'string') text = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) text = String(v);
  else fail(`${field} must be text.`);
  if (text.trim() === '') return null;
  if (text.length > max) fail(`${field} is longer than ${max} characters.`);
  return text;
}

function readText(v: unknown, field: string, max: number): string | null {
  if (absent(v)) return null;
  if (typeof v !== 'string') fail(`${field} must be text.`);
  if (v.length > max) fail(`${field} is longer than ${max} characters.`);
  return v;
}

function readBool(v: unknown, field: string): boolean | null {
  if (absent(v)) return null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (t === 'true' || t === '1') return true;
    if (t === 'false' || t === '0') return false;
    if (t === '') return null;
  }
  if (v === 1) return true;
  if (v === 0) return false;
  return fail(`${field} must be true or false.`);
}

/** Text read as a number must be a plain decimal: Number() would take "0x10" for 16. */
const DECIMAL_TEXT = /^-?[0-9]{1,20}(\.[0-9]{1,20})?$/;

function numberOfText(text: string): number {
  const trimmed = text.trim();
  return DECIMAL_TEXT.test(trimmed) ? Number(trimmed) : NaN;
}

function readNumber(v: unknown, field: string, min = 0): number | null {
  if (absent(v)) return null;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && v.trim() !== '') n = numberOfText(v);
  else if (v === '') return null;
  else fail(`${field} must be a number.`);
  if (!Number.isFinite(n) || n < min) fail(`${field} must be a number of at least ${min}.`);
  return n;
}

function readArray(v: unknown, field: string): unknown[] {
  if (absent(v) || v === '') return [];
  if (!Array.isArray(v)) fail(`${field} must be a list.`);
  if (v.length > LIMITS.arrayItems) fail(`${field} has more than ${LIMITS.arrayItems} items.`);
  return v;
}

function readCodes(v: unknown, field: string): number[] {
  return readArray(v, field).map((item) => {
    const n = typeof item === 'string' && item.trim() !== '' ? numberOfText(item) : item;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > 2_147_483_647) {
      fail(`${field} must hold whole numbers.`);
    }
    return n;
  });
}

export function readLocalTexts(v: unknown, field: string): LocalText[] {
  return readArray(v, field).map((item) => {
    if (!isRecord(item)) fail(`${field} items must be {lang, val}.`);
    const lang = partText(fieldOf(item, 'lang'), field, '.lang', LIMITS.langLength);
    const val = partText(fieldOf(item, 'val'), field, '.val', LIMITS.textLength);
    return { lang, val };
  });
}

/** readText of `${field}${part}`: the name made only for an error (not twice for every text). */
function partText(v: unknown, field: string, part: string, max: number): string {
  if (typeof v === 'string' && v.length <= max) return v;
  return readText(v, `${field}${part}`, max) ?? '';
}

/** A VAT rate as exact decimal text, 0 to 100. */
function readRate(v: unknown, field: string): string | null {
  if (absent(v) || v === '') return null;
  // A whole percentage sent as a number (19, 7): its text, as the decimal reading below writes it.
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100) return String(v);
  if (typeof v !== 'number' && typeof v !== 'string') fail(`${field} must be a number.`);
  const d = parseDecimal(v);
  if (!d || d.units < 0n || decimalPlaces(d) > 4 || decimalToMinor(d, 4) > 1_000_000n) {
    fail(`${field} must be a percentage from 0 to 100 with at most four decimals.`);
  }
  const scaled = decimalToMinor(d, 4).toString().padStart(5, '0');
  const text = `${scaled.slice(0, -4)}.${scaled.slice(-4)}`.replace(/\.?0+$/, '');
  return text === '' ? '0' : text;
}

function readPrice(v: unknown, defaultCurrency: string): StoredPrice {
  if (!isRecord(v)) fail('Prices items must be {Value, CurrencyIso, Tag}.');
  const currencyText = readText(fieldOf(v, 'CurrencyIso'), 'Prices.CurrencyIso', 3);
  const currency = (currencyText ?? defaultCurrency).toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) fail('Prices.CurrencyIso must be a three-letter ISO 4217 code.');
  const raw = fieldOf(v, 'Value');
  if (absent(raw) || raw === '') fail('Prices.Value is required.');
  if (typeof raw !== 'number' && typeof raw !== 'string') fail('Prices.Value must be a number.');
  const exponent = currencyExponent(currency);
  let minor = typeof raw === 'number' ? minorOfNumber(raw, exponent) : null;
  if (minor === null) {
    const d = parseDecimal(raw);
    if (!d) fail('Prices.Value must be a number.');
    if (d.units < 0n) fail('Prices.Value must not be negative.', 'refused');
    if (decimalPlaces(d) > exponent) {
      fail(`Prices.Value has more decimals than ${currency} has (${exponent}).`, 'refused');
    }
    minor = Number(decimalToMinor(d, exponent));
    if (!Number.isSafeInteger(minor)) fail('Prices.Value is too large.');
  }
  let tag: StoredPrice['Tag'] = null;
  const rawTag = fieldOf(v, 'Tag');
  if (!absent(rawTag) && rawTag !== '') {
    if (!isRecord(rawTag)) fail('Prices.Tag must be {Name: [{lang, val}]}.');
    tag = { Name: readLocalTexts(fieldOf(rawTag, 'Name'), 'Prices.Tag.Name') };
  }
  return { ValueMinor: minor, CurrencyIso: currency, Tag: tag };
}

function readNutrition(v: unknown): NutritionFacts | null {
  if (absent(v) || v === '') return null;
  if (!isRecord(v)) fail('NutritionFacts must be {Fats, Carbs, Protein, KJoule, KCal}.');
  return {
    Fats: readNumber(fieldOf(v, 'Fats'), 'NutritionFacts.Fats'),
    Carbs: readNumber(fieldOf(v, 'Carbs'), 'NutritionFacts.Carbs'),
    Protein: readNumber(fieldOf(v, 'Protein'), 'NutritionFacts.Protein'),
    KJoule: readNumber(fieldOf(v, 'KJoule'), 'NutritionFacts.KJoule'),
    KCal: readNumber(fieldOf(v, 'KCal'), 'NutritionFacts.KCal'),
  };
}

/**
 * Reads an article body. Order of the checks: PLU (12008), Name (12005), then every field
 * (1000). `defaultCurrency` is the merchant's, for prices without CurrencyIso.
 */
export function parseArticle(input: unknown, defaultCurrency: string): ParseResult<StoredArticle> {
  try {
    if (!isRecord(input)) fail('An article must be an object.');
    const plu = readKey(fieldOf(input, 'PLU'), 'PLU', LIMITS.pluLength);
    if (plu === null) fail('PLU is required.', 'pluMissing');
    const name = readLocalTexts(fieldOf(input, 'Name'), 'Name');
    if (!name.some((n) => n.val.trim() !== ''))
      fail('Name needs a value in at least one language.', 'nameMissing');
    const tags = readArray(fieldOf(input, 'Tags'), 'Tags').map((t) => {
      const text = readKey(t, 'Tags', 200);
      if (text === null) fail('Tags must not be empty.');
      return text;
    });
    const article: StoredArticle = {
      PLU: plu,
      GroupId: readKey(fieldOf(input, 'GroupId'), 'GroupId', LIMITS.groupIdLength),
      Name: name,
      ExternalName: readLocalTexts(fieldOf(input, 'ExternalName'), 'ExternalName'),
      Description: readLocalTexts(fieldOf(input, 'Description'), 'Description'),
      Ingredients: readLocalTexts(fieldOf(input, 'Ingredients'), 'Ingredients'),
      Rateable: readBool(fieldOf(input, 'Rateable'), 'Rateable'),
      SoldOut: readBool(fieldOf(input, 'SoldOut'), 'SoldOut'),
      PictureUrl: readText(fieldOf(input, 'PictureUrl'), 'PictureUrl', LIMITS.urlLength),
      Prices: readArray(fieldOf(input, 'Prices'), 'Prices').map((p) => readPrice(p, defaultCurrency)),
      Allergens: readCodes(fieldOf(input, 'Allergens'), 'Allergens'),
      Traces: readCodes(fieldOf(input, 'Traces'), 'Traces'),
      Additives: readCodes(fieldOf(input, 'Additives'), 'Additives'),
      Tags: tags,
      WeightInGramms: readNumber(fieldOf(input, 'WeightInGramms'), 'WeightInGramms'),
      NutritionFacts: readNutrition(fieldOf(input, 'NutritionFacts')),
      VatInPercent: readRate(fieldOf(input, 'VatInPercent'), 'VatInPercent'),
      TakeawayVatInPercent: readRate(fieldOf(input, 'TakeawayVatInPercent'), 'TakeawayVatInPercent'),
    };
    return { ok: true, value: article };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, error: { error: err.error, detail: err.detail } };
    throw err;
  }
}

export interface GroupInput {
  Id: string;
  Name: LocalText[];
  UpGroupId: string | null;
}

/** Reads a group body; `pathId` (single operations) must agree with the body's Id. */
export function parseGroup(input: unknown, pathId: string | null): ParseResult<GroupInput> {
  try {
    if (!isRecord(input)) fail('A group must be an object.');
    const bodyId = readKey(fieldOf(input, 'Id'), 'Id', LIMITS.groupIdLength);
    const id = bodyId ?? pathId;
    if (id === null) fail('Id is required.');
    if (pathId !== null && id !== pathId) fail('Id of the body differs from the Id of the path.', 'refused');
    const upGroupId = readKey(fieldOf(input, 'UpGroupId'), 'UpGroupId', LIMITS.groupIdLength);
    if (upGroupId === id) fail('A group cannot be its own UpGroupId.', 'refused');
    return {
      ok: true,
      value: { Id: id, Name: readLocalTexts(fieldOf(input, 'Name'), 'Name'), UpGroupId: upGroupId },
    };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, error: { error: err.error, detail: err.detail } };
    throw err;
  }
}

/** The canonical text of a stored article and its content hash. */
export function canonical(article: StoredArticle): { text: string; hash: string } {
  const text = JSON.stringify(article);
  return { text, hash: hash('sha256', text, 'base64url') };
}

/** An article in the shape of the documents (prices as major-unit decimals). */
export interface ArticleOut {
  PLU: string;
  GroupId?: string;
  Name: LocalText[];
  ExternalName: LocalText[];
  Description: LocalText[];
  Ingredients: LocalText[];
  Rateable?: boolean;
  SoldOut?: boolean;
  PictureUrl?: string;
  Prices: { Value: number; CurrencyIso: string; Tag?: { Name: LocalText[] } }[];
  Allergens: number[];
  Traces: number[];
  Additives: number[];
  Tags: string[];
  WeightInGramms?: number;
  NutritionFacts?: Partial<Record<keyof NutritionFacts, number>>;
  VatInPercent?: number;
  TakeawayVatInPercent?: number;
}

const texts = (list: readonly LocalText[]): LocalText[] => list.map((t) => ({ lang: t.lang, val: t.val }));

function orUndefined<T>(v: T | null): T | undefined {
  return v === null ? undefined : v;
}

/** Written in the documents' field order, which XML keeps (jsonb does not keep key order). */
export function articleOut(a: StoredArticle): ArticleOut {
  let facts: ArticleOut['NutritionFacts'];
  if (a.NutritionFacts !== null) {
    facts = {};
    for (const k of ['Fats', 'Carbs', 'Protein', 'KJoule', 'KCal'] as const) {
      const v = a.NutritionFacts[k];
      if (v !== null) facts[k] = v;
    }
  }
  const out: ArticleOut = {
    PLU: a.PLU,
    Name: texts(a.Name),
    GroupId: orUndefined(a.GroupId),
    Rateable: orUndefined(a.Rateable),
    ExternalName: texts(a.ExternalName),
    Description: texts(a.Description),
    Ingredients: texts(a.Ingredients),
    SoldOut: orUndefined(a.SoldOut),
    PictureUrl: orUndefined(a.PictureUrl),
    Prices: a.Prices.map((p) => ({
      Value: minorToMajor(p.ValueMinor, currencyExponent(p.CurrencyIso)),
      CurrencyIso: p.CurrencyIso,
      ...(p.Tag ? { Tag: { Name: texts(p.Tag.Name) } } : {}),
    })),
    Allergens: a.Allergens,
    Traces: a.Traces,
    Additives: a.Additives,
    Tags: a.Tags,
    WeightInGramms: orUndefined(a.WeightInGramms),
    NutritionFacts: facts,
    VatInPercent: a.VatInPercent === null ? undefined : Number(a.VatInPercent),
    TakeawayVatInPercent: a.TakeawayVatInPercent === null ? undefined : Number(a.TakeawayVatInPercent),
  };
  for (const key of Object.keys(out) as (keyof ArticleOut)[]) if (out[key] === undefined) delete out[key];
  return out;
}
