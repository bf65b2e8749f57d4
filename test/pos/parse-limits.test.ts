import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BULK_MAX_ARTICLES, BULK_MAX_LISTED_ERRORS } from '../../src/sortiment/bulk-upload.js';
import { normaliseValue } from '../../src/wire/normalise.js';
import { REQUEST_LIMITS, checkJsonListLengths } from '../../src/wire/parse-limits.js';
import { parseXml } from '../../src/wire/xml.js';
import {
  type TestApp,
  type Terminal,
  databases,
  setupTerminal,
  sortimentIdOf,
  startApp,
} from '../support/harness.js';

/**
 * A body's structure is bounded while it is read: XML element counts during parsing, list lengths
 * before JSON becomes objects, and the bulk upload by its articles and the length of its error
 * list. A refused body answers 400 with 1030 or 1031, never a 500.
 */

describe('parse limits', () => {
  it('JSON: a list of more items than allowed is refused before parsing; commas and brackets in strings do not count', () => {
    const max = 1000;
    const list = (n: number) => `[${Array.from({ length: n }, () => '0').join(',')}]`;
    expect(() => checkJsonListLengths(`{"a":${list(max)}}`, max)).not.toThrow();
    expect(() => checkJsonListLengths(`{"a":${list(max + 1)}}`, max)).toThrow(/more than 1000 items/);
    expect(() => checkJsonListLengths(`{"a":[[${list(max)}]]}`, max)).not.toThrow();
    expect(() => checkJsonListLengths(`{"a":[{"b":${list(max + 1)}}]}`, max)).toThrow(/1000/);
    const commas = `["${','.repeat(3 * max)}", "\\"[,,,", 1]`;
    expect(() => checkJsonListLengths(commas, max)).not.toThrow();
    expect(() => checkJsonListLengths(`{${'"k":1,'.repeat(3 * max)}"z":1}`, max)).not.toThrow();
  });

  it('XML: the element count is capped while the document is read', () => {
    const doc = (n: number) => `<R>${'<a/>'.repeat(n)}</R>`;
    expect(() => parseXml(doc(9), { maxXmlElements: 10, maxListItems: 100 })).not.toThrow();
    expect(() => parseXml(doc(10), { maxXmlElements: 10, maxListItems: 100 })).toThrow(
      /more than 10 elements/,
    );
    expect(() => parseXml(doc(50), { maxXmlElements: 100, maxListItems: 20 })).toThrow(/more than 20 items/);
  });

  it('XML: an array field of 200,000 children is normalised without overflowing the stack', () => {
    const children = Array.from({ length: 200_000 }, () => '');
    const out = normaliseValue(
      { Item: children, Other: 'x' },
      { type: 'array', items: { type: 'string' } },
      true,
    );
    expect(Array.isArray(out) && out.length).toBe(200_001);
  });
});

describe.each(databases)('parse limits over HTTP (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('an XML basket of 200,000 empty elements (under 1 KB gzip-compressed) is 400 / 1030, not 500', async () => {
    const xml = `<Basket><Positions>${'<Position/>'.repeat(200_000)}</Positions></Basket>`;
    const gz = gzipSync(xml, { level: 9 });
    expect(gz.length).toBeLessThan(5_000);
    const res = await term.pos('POST', '/baskets/xml-many', {
      raw: gz,
      format: 'xml',
      headers: { 'content-type': 'application/xml', 'content-encoding': 'gzip', accept: 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1030 });
  });

  it('a JSON basket with a list of more than 10,000 items is 400 / 1030', async () => {
    const positions = Array.from({ length: REQUEST_LIMITS.maxListItems + 1 }, () => 0);
    const res = await term.pos('POST', '/baskets/json-many', {
      raw: JSON.stringify({ Positions: positions }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1030 });
  });

  it('an operator body with a list of more than 10,000 items is 400 list_too_long', async () => {
    const res = await t.admin('POST', '/merchants', { tags: Array.from({ length: 10_001 }, () => 1) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'list_too_long' } });
  });

  it('a bulk upload lists at most 100 invalid items and counts the rest; its answer stays small', async () => {
    const sid = await sortimentIdOf(term, `limits-${kind}`);
    const broken = 50_000;
    const body = `{"Articles":[${Array.from({ length: broken }, () => '{"PLU":"","Name":[]}').join(',')}]}`;
    const gz = gzipSync(body, { level: 9 });
    expect(gz.length).toBeLessThan(10_000);
    const res = await term.pos('POST', `/sortiments/${sid}/bulkUpload`, {
      query: { changedArticlesOnly: 'true' },
      raw: gz,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(400);
    const answer = res.json() as {
      ErrorId: number;
      Errors: unknown[];
      ErrorsNotListed: number;
      ErrorText: string;
    };
    expect(answer.ErrorId).toBe(1000);
    expect(answer.Errors).toHaveLength(BULK_MAX_LISTED_ERRORS);
    expect(answer.ErrorsNotListed).toBe(broken - BULK_MAX_LISTED_ERRORS);
    expect(answer.ErrorText).toContain(`${broken} invalid item(s)`);
    expect(res.body.length).toBeLessThan(50_000);
  });

  it('an XML bulk upload of more articles than allowed is 400 / 1031, counted while its body is scanned', async () => {
    const sid = await sortimentIdOf(term, `too-many-xml-${kind}`);
    const xml = `<BulkUpload><Articles>${'<Article/>'.repeat(BULK_MAX_ARTICLES + 1)}</Articles></BulkUpload>`;
    const res = await term.pos('POST', `/sortiments/${sid}/bulkUpload`, {
      query: { changedArticlesOnly: 'false' },
      raw: gzipSync(xml),
      headers: { 'content-type': 'application/xml', 'content-encoding': 'gzip', accept: 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1031 });
  });

  it('an XML bulk upload with a DOCTYPE, or not well-formed, is 400 / 1000 and changes nothing', async () => {
    const sid = await sortimentIdOf(term, `xml-refused-${kind}`);
    const send = (xml: string) =>
      term.pos('POST', `/sortiments/${sid}/bulkUpload`, {
        query: { changedArticlesOnly: 'false' },
        raw: xml,
        headers: { 'content-type': 'application/xml', accept: 'application/json' },
      });
    const good =
      '<Article><PLU>1</PLU><Name><LocalizedText><lang>de</lang><val>Eins</val></LocalizedText></Name></Article>';
    expect((await send(`<BulkUpload><Articles>${good}</Articles></BulkUpload>`)).statusCode).toBe(200);
    for (const xml of [
      `<!DOCTYPE x [<!ENTITY a "b">]><BulkUpload><Articles/></BulkUpload>`,
      `<BulkUpload><Articles>${good}<Article><PLU>2</Article></PLU></Articles></BulkUpload>`,
      `<BulkUpload><Articles>${good}<Article><PLU x="1" x="2">2</PLU></Article></Articles></BulkUpload>`,
    ]) {
      const res = await send(xml);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
    }
    const list = await term.pos('GET', `/sortiments/${sid}/articles`);
    expect(list.json()).toMatchObject({ Total: 1 });
  });

  it('a bulk upload of more articles than allowed is 400 / 1031 (JSON) and changes nothing', async () => {
    const sid = await sortimentIdOf(term, `too-many-${kind}`);
    const body = `{"Articles":[${Array.from({ length: BULK_MAX_ARTICLES + 1 }, () => '{}').join(',')}]}`;
    const res = await term.pos('POST', `/sortiments/${sid}/bulkUpload`, {
      query: { changedArticlesOnly: 'false' },
      raw: gzipSync(body),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1031 });
    const list = await term.pos('GET', `/sortiments/${sid}/articles`);
    expect(list.json()).toMatchObject({ Total: 0 });
  });
});
