import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { BULK_MAX_ARTICLES } from '../../src/sortiment/bulk-upload.js';
import { BULK_XML_LIMITS, xmlSource } from '../../src/wire/bulk-body.js';
import { SegmentedBytes } from '../../src/wire/segmented-bytes.js';
import { type XmlItemLimits, scanXmlItems } from '../../src/wire/xml-items.js';
import { parseXml } from '../../src/wire/xml.js';

/**
 * An XML bulk upload is read item by item (docs/decisions.md, "Sortiment"): one pass checks the document and notes where its articles lie, each article is parsed
 * when it is read. The limits of the whole document hold as before.
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ARTICLE =
  '<Article><PLU>{plu}</PLU><GroupId>G</GroupId><Name><LocalizedText><lang>de</lang><val>Artikel {plu}</val>' +
  '</LocalizedText></Name><Prices><Price><Value>1.20</Value><CurrencyIso>EUR</CurrencyIso></Price></Prices>' +
  '<Allergens><a:int>3</a:int><a:int>7</a:int></Allergens><Description><LocalizedText><lang>de</lang>' +
  '<val>Ein Artikel mit einer Beschreibung</val></LocalizedText></Description></Article>';

/** An article with every field of the document, names and texts in two languages. */
const texts = (v: string): string =>
  `<LocalizedText><lang>de</lang><val>${v}</val></LocalizedText><LocalizedText><lang>en</lang><val>${v}</val></LocalizedText>`;
const FULL_ARTICLE =
  `<Article><PLU>{plu}</PLU><Name>${texts('N')}</Name><ExternalName>${texts('E')}</ExternalName>` +
  `<Description>${texts('D')}</Description><Ingredients>${texts('I')}</Ingredients><GroupId>G</GroupId>` +
  '<Rateable>true</Rateable><SoldOut>false</SoldOut><PictureUrl>https://p</PictureUrl><Prices>' +
  '<Price><Value>1.20</Value><CurrencyIso>EUR</CurrencyIso></Price><Price><Value>0.90</Value>' +
  `<CurrencyIso>EUR</CurrencyIso><Tag><Name>${texts('T')}</Name></Tag></Price></Prices>` +
  '<Allergens><a:int>1</a:int><a:int>2</a:int></Allergens><Traces><a:int>3</a:int></Traces>' +
  '<Additives><a:int>330</a:int></Additives><Tags><a:string>menu</a:string><a:string>x</a:string></Tags>' +
  '<WeightInGramms>100</WeightInGramms><NutritionFacts><Fats>3.5</Fats><Carbs>20.1</Carbs><Protein>7.2</Protein>' +
  '<KJoule>800</KJoule><KCal>190</KCal></NutritionFacts><VatInPercent>19</VatInPercent>' +
  '<TakeawayVatInPercent>7</TakeawayVatInPercent></Article>';

function document(articles: number, article = ARTICLE): Buffer {
  const parts = [
    '<?xml version="1.0"?><BulkUpload xmlns:a="urn:arrays"><Groups><Group><Id>G</Id></Group></Groups><Articles>',
  ];
  for (let i = 0; i < articles; i++) parts.push(article.replaceAll('{plu}', String(i)));
  parts.push('</Articles></BulkUpload>');
  return Buffer.from(parts.join('\n'), 'utf8');
}

const heapAfterGc = (): number => {
  gc();
  return process.memoryUsage().heapUsed;
};

/**
 * The scan over the body as it is received: in segments of the service's size, or of 16 bytes,
 * so that tags, comments and names lie across segment boundaries.
 */
const scan = (buf: Buffer, limits: XmlItemLimits, segmentBits?: number) =>
  scanXmlItems(SegmentedBytes.of(buf, segmentBits), limits);
const scanSmall = (buf: Buffer, limits: XmlItemLimits) => scan(buf, limits, 4);

describe('XML bulk bodies read item by item', () => {
  it('reading a 60,000-article document holds no parsed tree: the heap grows by less than a tenth of the body', async () => {
    const buf = document(60_000);
    expect(buf.length).toBeGreaterThan(20_000_000);
    const before = heapAfterGc();
    const items = await scan(buf, BULK_XML_LIMITS);
    const grown = heapAfterGc() - before;
    expect(items.count('articles')).toBe(60_000);
    // The parsed tree of the same document (the reader before) took about twice the body.
    expect(grown).toBeLessThan(buf.length / 10);
    // The articles come one at a time, as the whole-document reader gave them.
    const source = xmlSource(items);
    expect(source.groups).toEqual([{ Id: 'G' }]);
    expect(source.article(59_999)).toEqual(parseXml(ARTICLE.replaceAll('{plu}', '59999')).value as object);
  });

  it('a long scan gives other work a turn: timers run while a 60,000-article document is scanned', async () => {
    const bytes = SegmentedBytes.of(document(60_000));
    let turns = 0;
    const timer = setInterval(() => {
      turns += 1;
    }, 1);
    try {
      await scanXmlItems(bytes, BULK_XML_LIMITS);
    } finally {
      clearInterval(timer);
    }
    expect(turns).toBeGreaterThan(0);
  });

  it('the element limit admits BULK_MAX_ARTICLES articles with every field, as JSON does', async () => {
    const elementsPerArticle = FULL_ARTICLE.match(/<[A-Za-z]/g)?.length ?? 0;
    expect(elementsPerArticle).toBeGreaterThan(60);
    expect(BULK_XML_LIMITS.maxXmlElements).toBeGreaterThanOrEqual(BULK_MAX_ARTICLES * elementsPerArticle);
    // 40,000 such articles passed 2,000,000 elements, where an earlier limit refused them (1030).
    const items = await scan(document(40_000, FULL_ARTICLE), BULK_XML_LIMITS);
    expect(items.count('articles')).toBe(40_000);
    expect(xmlSource(items).article(39_999)).toMatchObject({ PLU: '39999', NutritionFacts: { KCal: '190' } });
  });

  it('the article list holds at most BULK_MAX_ARTICLES (1031), counted while scanning', async () => {
    const limits = { ...BULK_XML_LIMITS, lists: new Map([['articles', 3]]) };
    await expect(scanSmall(document(3), limits)).resolves.toBeDefined();
    await expect(scanSmall(document(4), limits)).rejects.toThrow(/At most 3 articles/);
  });

  it('the element count, nesting, DOCTYPE and well-formedness of the whole document are checked before any article is read', async () => {
    const small = { ...BULK_XML_LIMITS, maxXmlElements: 10 };
    const doc = (n: number) => Buffer.from(`<R><Articles>${'<a/>'.repeat(n)}</Articles></R>`);
    await expect(scanSmall(doc(8), small)).resolves.toBeDefined();
    await expect(scanSmall(doc(9), small)).rejects.toThrow(/more than 10 elements/);
    const deep = Buffer.from(`<R><Articles><A>${'<a>'.repeat(100)}${'</a>'.repeat(100)}</A></Articles></R>`);
    await expect(scanSmall(deep, BULK_XML_LIMITS)).rejects.toThrow(/Maximum nested tags/);
    const doctype = Buffer.from('<!DOCTYPE R [<!ENTITY x "y">]><R><Articles/></R>');
    await expect(scanSmall(doctype, BULK_XML_LIMITS)).rejects.toThrow(/DOCTYPE and entity declarations/);
    const crossed = Buffer.from('<R><Articles><A><PLU>1</A></PLU></Articles></R>');
    await expect(scanSmall(crossed, BULK_XML_LIMITS)).rejects.toThrow(/not well-formed/);
    const unclosed = Buffer.from('<R><Articles><A><PLU>1</PLU></A></Articles>');
    await expect(scanSmall(unclosed, BULK_XML_LIMITS)).rejects.toThrow(/not well-formed: 'R' is not closed/);
    const twoRoots = Buffer.from('<R><Articles/></R><R/>');
    await expect(scanSmall(twoRoots, BULK_XML_LIMITS)).rejects.toThrow(/second root/);
    const text = Buffer.from('<R><Articles>abc</Articles></R>');
    await expect(scanSmall(text, BULK_XML_LIMITS)).rejects.toThrow(/must be a list/);
  });

  it('an article that is not well-formed inside is refused with its line in the whole document', async () => {
    const buf = Buffer.from(
      '<R>\n<Articles>\n<A><PLU>1</PLU></A>\n<A><PLU a="1" a="2">2</PLU></A>\n</Articles>\n</R>',
    );
    const items = await scanSmall(buf, BULK_XML_LIMITS);
    expect(items.item('articles', 0)).toEqual({ PLU: '1' });
    expect(() => items.item('articles', 1)).toThrow(/line 4/);
  });

  it("the bytes of the articles read are let go, and a later article's error still names its line in the whole document", async () => {
    const good = Array.from({ length: 50 }, (_, i) => `<A><PLU>${i}</PLU></A>`).join('\n');
    const buf = Buffer.from(`<R>\n<Articles>\n${good}\n<A><PLU a="1" a="2">x</PLU></A>\n</Articles>\n</R>`);
    const bytes = SegmentedBytes.of(buf, 6);
    const source = xmlSource(await scanXmlItems(bytes, BULK_XML_LIMITS));
    for (let i = 0; i < 50; i++) expect(source.article(i)).toEqual({ PLU: String(i) });
    expect(bytes.retained()).toBeLessThan(buf.length / 4);
    expect(() => source.article(50)).toThrow(/line 53/);
  });

  it('text is found across segment boundaries, and lines are counted from the start after segments are let go', () => {
    const bytes = SegmentedBytes.of(Buffer.from('ab\ncd-\n->ef\n-->'), 2);
    expect(bytes.indexOfText('-->', 0)).toBe(12);
    expect(bytes.indexOfText('->', 0)).toBe(7);
    expect(bytes.indexOfText('cd', 1)).toBe(3);
    expect(bytes.indexOfText('x', 0)).toBe(-1);
    bytes.release(12, true);
    expect(bytes.lineAt(13)).toBe(4);
    expect(bytes.lineAt(14)).toBe(4);
  });

  it('comments, CDATA, processing instructions, attributes with ">" and self-closing items are read as before', async () => {
    const xml =
      '<?xml version="1.0"?><!-- a <comment> --><R><Articles><A i:nil="true"/>' +
      '<A note="x > y"><PLU><![CDATA[<1>]]></PLU></A><?pi x?></Articles></R>';
    const items = await scanSmall(Buffer.from(xml), BULK_XML_LIMITS);
    expect(items.count('articles')).toBe(2);
    expect(items.item('articles', 0)).toBeNull();
    expect(items.item('articles', 1)).toEqual({ PLU: '<1>' });
  });
});
