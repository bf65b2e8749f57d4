import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';

export function article(plu: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    PLU: plu,
    Name: [
      { lang: 'de', val: `Artikel ${plu}` },
      { lang: 'en', val: `Article ${plu}` },
    ],
    ...extra,
  };
}

export const FULL_ARTICLE = {
  PLU: '1001',
  Name: [{ lang: 'de', val: 'Weißbier 0,5 l' }],
  ExternalName: [{ lang: 'en', val: 'Wheat beer' }],
  Description: [{ lang: 'de', val: 'Hefeweizen vom Fass' }],
  Ingredients: [{ lang: 'de', val: 'Wasser, Weizenmalz, Gerstenmalz, Hopfen, Hefe' }],
  GroupId: 'BEER',
  Rateable: true,
  SoldOut: false,
  PictureUrl: 'https://example.com/beer.png',
  Prices: [
    { Value: 4.9, CurrencyIso: 'EUR' },
    { Value: 2.45, CurrencyIso: 'EUR', Tag: { Name: [{ lang: 'de', val: 'Happy Hour' }] } },
    { Value: 0.1, CurrencyIso: 'EUR', Tag: { Name: [{ lang: 'en', val: 'Deposit' }] } },
  ],
  Allergens: [1, 99],
  Traces: [8],
  Additives: [330],
  Tags: ['draught', 'bavarian'],
  WeightInGramms: 500,
  NutritionFacts: { Fats: 0, Carbs: 3.2, Protein: 0.5, KJoule: 180, KCal: 43 },
  VatInPercent: 19,
  TakeawayVatInPercent: 7,
};

describe.each(databases)('sortiment operations on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let sid: string;

  const lookup = (query: Record<string, string>, format: 'json' | 'xml' = 'json', who = term) =>
    who.pos('GET', '/sortiments', { query, format });

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    const res = await lookup({ thirdPartySortimentIdentifier: 'ERP-1', name: 'Main menu' });
    sid = (res.json() as { serviceSortimentId: string }).serviceSortimentId;
    await term.pos('POST', `/sortiments/${sid}/group/DRINKS`, {
      body: { Id: 'DRINKS', Name: [{ lang: 'de', val: 'Getränke' }] },
    });
    await term.pos('POST', `/sortiments/${sid}/group/BEER`, {
      body: { Id: 'BEER', Name: [{ lang: 'de', val: 'Bier' }], UpGroupId: 'DRINKS' },
    });
  });
  afterAll(() => t?.close());

  describe('sortiment id lookup', () => {
    it('creates on first call and returns the same serviceSortimentId and menuId afterwards', async () => {
      const first = await lookup({ thirdPartySortimentIdentifier: 'ERP-lookup', name: 'Bar' });
      expect(first.statusCode).toBe(200);
      const body = first.json() as { serviceSortimentId: string; menuId: number };
      expect(body).toEqual({
        serviceSortimentId: String(body.menuId),
        thirdPartySortimentIdentifier: 'ERP-lookup',
        Name: 'Bar',
        menuId: body.menuId,
      });
      const again = await lookup({ thirdPartySortimentIdentifier: 'ERP-lookup' });
      expect(again.json()).toEqual(body);
    });

    it('concurrent first calls create one sortiment', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, () => lookup({ thirdPartySortimentIdentifier: 'ERP-race', name: 'Race' })),
      );
      const ids = new Set(
        results.map((r) => (r.json() as { serviceSortimentId: string }).serviceSortimentId),
      );
      expect(ids.size).toBe(1);
    });

    it('the same identifier at two merchants is two sortiments', async () => {
      const other = await setupTerminal(t);
      const a = await lookup({ thirdPartySortimentIdentifier: 'ERP-shared' });
      const b = await lookup({ thirdPartySortimentIdentifier: 'ERP-shared' }, 'json', other);
      expect(a.json()).not.toEqual(b.json());
    });

    it('answers XML with root Sortiment', async () => {
      const res = await lookup({ thirdPartySortimentIdentifier: 'ERP-1' }, 'xml');
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(`<Sortiment><serviceSortimentId>${sid}</serviceSortimentId>`);
      expect(res.body).toContain(`<menuId>${sid}</menuId>`);
    });

    it('without thirdPartySortimentIdentifier is 400 / 1000', async () => {
      const res = await lookup({ name: 'x' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
    });

    it("registration with the sortiment id of the merchant is accepted, another merchant's is 12001", async () => {
      const other = await setupTerminal(t);
      const otherSid = (
        (await lookup({ thirdPartySortimentIdentifier: 'ERP-x' }, 'json', other)).json() as {
          serviceSortimentId: string;
        }
      ).serviceSortimentId;
      const reg = (sortimentId: string) =>
        t.app.inject({
          method: 'GET',
          url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(term.serviceUserName)}&outletId=${term.outletId}&instanceName=T2&sortimentId=${sortimentId}`,
          headers: { devkey: term.devKey, accept: 'application/json' },
        });
      expect((await reg(sid)).statusCode).toBe(200);
      const foreign = await reg(otherSid);
      expect(foreign.statusCode).toBe(400);
      expect(foreign.json()).toMatchObject({ ErrorId: 12001 });
    });
  });

  describe('activation and tenancy', () => {
    it('an inactive unit gets 403 on every sortiment operation', async () => {
      const inactive = await setupTerminal(t, { activate: false });
      const calls = [
        inactive.pos('GET', '/sortiments', { query: { thirdPartySortimentIdentifier: 'x' } }),
        inactive.pos('POST', `/sortiments/${sid}/group/G`, { body: { Id: 'G' } }),
        inactive.pos('POST', `/sortiments/${sid}/article/1`, { body: article('1') }),
        inactive.pos('GET', `/sortiments/${sid}/articles`),
        inactive.pos('POST', `/sortiments/${sid}/bulkUpload`, {
          query: { changedArticlesOnly: 'true' },
          body: { Articles: [] },
        }),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ ErrorId: 1004 });
      }
    });

    it("another merchant's sortiment answers exactly like an unknown one (12001) for every operation", async () => {
      await term.pos('POST', `/sortiments/${sid}/article/T-1`, { body: article('T-1', { GroupId: 'BEER' }) });
      const other = await setupTerminal(t);
      const ops: [string, string, Record<string, unknown>][] = [
        ['POST', '/group/NEW', { body: { Id: 'NEW' } }],
        ['PUT', '/group/BEER', { body: { Id: 'BEER' } }],
        ['DELETE', '/group/BEER', {}],
        ['POST', '/article/T-2', { body: article('T-2') }],
        ['PUT', '/article/T-1', { body: article('T-1') }],
        ['DELETE', '/article/T-1', {}],
        ['GET', '/article/T-1', {}],
        ['GET', '/articles', {}],
        ['POST', '/bulkUpload', { query: { changedArticlesOnly: 'false' }, body: { Articles: [] } }],
      ];
      for (const [method, path, request] of ops) {
        const foreign = await other.pos(method, `/sortiments/${sid}${path}`, request);
        const unknown = await other.pos(method, `/sortiments/999999999${path}`, request);
        expect(foreign.statusCode, `${method} ${path}`).toBe(400);
        expect(foreign.json(), `${method} ${path}`).toEqual({
          ErrorId: 12001,
          ErrorText: 'Sortiment id unknown.',
        });
        expect(unknown.body).toBe(foreign.body);
      }
      // Nothing changed in the owner's sortiment.
      const still = await term.pos('GET', `/sortiments/${sid}/article/T-1`);
      expect(still.statusCode).toBe(200);
    });

    it('a serviceSortimentId that is not a number answers 12001', async () => {
      const res = await term.pos('GET', '/sortiments/abc/articles');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 12001 });
    });
  });

  describe('groups', () => {
    it('create, update and delete answer 200 with an empty body', async () => {
      const c = await term.pos('POST', `/sortiments/${sid}/group/G1`, {
        body: { Id: 'G1', Name: [{ lang: 'de', val: 'Eins' }] },
      });
      expect(c.statusCode).toBe(200);
      expect(c.body).toBe('');
      const u = await term.pos('PUT', `/sortiments/${sid}/group/G1`, {
        body: { Id: 'G1', Name: [{ lang: 'de', val: 'Eins neu' }], UpGroupId: 'DRINKS' },
      });
      expect(u.statusCode).toBe(200);
      const d = await term.pos('DELETE', `/sortiments/${sid}/group/G1`);
      expect(d.statusCode).toBe(200);
      expect(d.body).toBe('');
    });

    it('create of an existing group is 400 / 12010', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/group/BEER`, { body: { Id: 'BEER' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 12010 });
    });

    it('create under an unknown UpGroupId is 400 / 12003', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/group/G2`, {
        body: { Id: 'G2', UpGroupId: 'NOPE' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 12003 });
    });

    it('update of an unknown group is 400 / 12011, delete too', async () => {
      const u = await term.pos('PUT', `/sortiments/${sid}/group/NOPE`, { body: { Id: 'NOPE' } });
      expect(u.statusCode).toBe(400);
      expect(u.json()).toMatchObject({ ErrorId: 12011 });
      const d = await term.pos('DELETE', `/sortiments/${sid}/group/NOPE`);
      expect(d.json()).toMatchObject({ ErrorId: 12011 });
    });

    it('delete of a group holding articles or sub-groups is 400 / 12012', async () => {
      const withChild = await term.pos('DELETE', `/sortiments/${sid}/group/DRINKS`);
      expect(withChild.statusCode).toBe(400);
      expect(withChild.json()).toMatchObject({ ErrorId: 12012 });
      await term.pos('POST', `/sortiments/${sid}/group/FULL`, { body: { Id: 'FULL' } });
      await term.pos('POST', `/sortiments/${sid}/article/F-1`, { body: article('F-1', { GroupId: 'FULL' }) });
      const withArticle = await term.pos('DELETE', `/sortiments/${sid}/group/FULL`);
      expect(withArticle.json()).toMatchObject({ ErrorId: 12012 });
    });

    it('an UpGroupId that makes a cycle is 400 / 1000 and changes nothing', async () => {
      await term.pos('POST', `/sortiments/${sid}/group/C1`, { body: { Id: 'C1' } });
      await term.pos('POST', `/sortiments/${sid}/group/C2`, { body: { Id: 'C2', UpGroupId: 'C1' } });
      await term.pos('POST', `/sortiments/${sid}/group/C3`, { body: { Id: 'C3', UpGroupId: 'C2' } });
      const cycle = await term.pos('PUT', `/sortiments/${sid}/group/C1`, {
        body: { Id: 'C1', UpGroupId: 'C3' },
      });
      expect(cycle.statusCode).toBe(400);
      expect(cycle.json()).toMatchObject({ ErrorId: 1000 });
      const self = await term.pos('PUT', `/sortiments/${sid}/group/C1`, {
        body: { Id: 'C1', UpGroupId: 'C1' },
      });
      expect(self.json()).toMatchObject({ ErrorId: 1000 });
      // C1 is still a root: deleting C3, C2 then C1 works.
      for (const g of ['C3', 'C2', 'C1']) {
        expect((await term.pos('DELETE', `/sortiments/${sid}/group/${g}`)).statusCode).toBe(200);
      }
    });

    it('a body Id other than the path Id is 400 / 1000', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/group/G3`, { body: { Id: 'OTHER' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
    });

    it('groups work in XML', async () => {
      const xml =
        '<Group><Id>XG</Id><Name><LocalizedText><lang>de</lang><val>XML-Gruppe</val></LocalizedText></Name>' +
        '<UpGroupId>DRINKS</UpGroupId></Group>';
      const res = await term.pos('POST', `/sortiments/${sid}/group/XG`, { raw: xml, format: 'xml' });
      expect(res.statusCode).toBe(200);
      const dup = await term.pos('POST', `/sortiments/${sid}/group/XG`, { raw: xml, format: 'xml' });
      expect(dup.statusCode).toBe(400);
      expect(dup.body).toContain('<ErrorId>12010</ErrorId>');
    });
  });

  describe('articles', () => {
    it('create then read gives every field back, prices exact in major units', async () => {
      const c = await term.pos('POST', `/sortiments/${sid}/article/1001`, {
        query: { groupId: 'BEER' },
        body: FULL_ARTICLE,
      });
      expect(c.statusCode).toBe(200);
      expect(c.body).toBe('');
      const r = await term.pos('GET', `/sortiments/${sid}/article/1001`);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({
        ...FULL_ARTICLE,
        AllergenInfo: [
          { Code: 1, Name: 'Cereals containing gluten' },
          { Code: 99, Name: '99' },
        ],
        TraceInfo: [{ Code: 8, Name: 'Nuts' }],
        AdditiveInfo: [{ Code: 330, Name: 'E330' }],
      });
    });

    it('allergen names follow lang or Accept-Language (de)', async () => {
      const byQuery = await term.pos('GET', `/sortiments/${sid}/article/1001`, { query: { lang: 'de' } });
      expect(byQuery.json()).toMatchObject({
        AllergenInfo: [
          { Code: 1, Name: 'Glutenhaltiges Getreide' },
          { Code: 99, Name: '99' },
        ],
      });
      const byHeader = await term.pos('GET', `/sortiments/${sid}/article/1001`, {
        headers: { 'accept-language': 'fr-CH, de-DE;q=0.8, en;q=0.5' },
      });
      expect(byHeader.json()).toMatchObject({ TraceInfo: [{ Code: 8, Name: 'Schalenfrüchte' }] });
    });

    it('prices are stored as integer minor units', async () => {
      const row = await t.database.db
        .selectFrom('sortiment_articles')
        .select('body')
        .where('plu', '=', '1001')
        .executeTakeFirstOrThrow();
      const prices = (row.body as { Prices: { ValueMinor: number }[] }).Prices.map((p) => p.ValueMinor);
      expect(prices).toEqual([490, 245, 10]);
    });

    it('a price with more decimals than the currency has is 400 / 1000', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/article/P-1`, {
        body: article('P-1', { Prices: [{ Value: 1.005, CurrencyIso: 'EUR' }] }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
    });

    it('create of an existing PLU is 400 / 12009, even in another group', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/article/1001`, {
        body: article('1001', { GroupId: 'DRINKS' }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 12009 });
    });

    it('create in an unknown group is 400 / 12003', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/article/A-1`, {
        body: article('A-1', { GroupId: 'NOPE' }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 12003 });
    });

    it('an article without a name in any language is 400 / 12005', async () => {
      for (const Name of [undefined, [], [{ lang: 'de', val: '  ' }]]) {
        const res = await term.pos('POST', `/sortiments/${sid}/article/N-1`, { body: { PLU: 'N-1', Name } });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ ErrorId: 12005 });
      }
      const put = await term.pos('PUT', `/sortiments/${sid}/article/1001`, { body: { PLU: '1001' } });
      expect(put.json()).toMatchObject({ ErrorId: 12005 });
    });

    it('an article without PLU is 400 / 12008 on create and update', async () => {
      const c = await term.pos('POST', `/sortiments/${sid}/article/X-1`, {
        body: { Name: [{ lang: 'de', val: 'x' }] },
      });
      expect(c.statusCode).toBe(400);
      expect(c.json()).toMatchObject({ ErrorId: 12008 });
      const u = await term.pos('PUT', `/sortiments/${sid}/article/1001`, {
        body: { PLU: '', Name: [{ lang: 'de', val: 'x' }] },
      });
      expect(u.json()).toMatchObject({ ErrorId: 12008 });
    });

    it('a body PLU other than the path PLU is 400 / 1000', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/article/X-2`, { body: article('X-3') });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
    });

    it('query groupId and body GroupId that differ are 400 / 1000', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/article/X-4`, {
        query: { groupId: 'DRINKS' },
        body: article('X-4', { GroupId: 'BEER' }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
    });

    it('the query groupId alone places the article', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/article/X-5`, {
        query: { groupId: 'BEER' },
        body: article('X-5'),
      });
      expect(res.statusCode).toBe(200);
      const read = await term.pos('GET', `/sortiments/${sid}/article/X-5`);
      expect(read.json()).toMatchObject({ GroupId: 'BEER' });
    });

    it('update replaces the article; update of an unknown PLU is 400 / 12006', async () => {
      const u = await term.pos('PUT', `/sortiments/${sid}/article/1001`, {
        body: { ...FULL_ARTICLE, SoldOut: true, Prices: [{ Value: 5.2 }] },
      });
      expect(u.statusCode).toBe(200);
      expect(u.body).toBe('');
      const read = (await term.pos('GET', `/sortiments/${sid}/article/1001`)).json() as Record<
        string,
        unknown
      >;
      expect(read.SoldOut).toBe(true);
      expect(read.Prices).toEqual([{ Value: 5.2, CurrencyIso: 'EUR' }]);
      const unknown = await term.pos('PUT', `/sortiments/${sid}/article/NOPE`, { body: article('NOPE') });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toMatchObject({ ErrorId: 12006 });
    });

    it('update that changes the GroupId is 400 / 12007', async () => {
      const res = await term.pos('PUT', `/sortiments/${sid}/article/1001`, {
        body: { ...FULL_ARTICLE, GroupId: 'DRINKS' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 12007 });
    });

    describe('GroupId must not be changed: an update naming another group than the article is in answers 12007, not 12006', () => {
      const GROUP_TEXT =
        'GroupId must not be changed. Delete the item and create it again in the other group. Article G-1 is in group BEER.';
      beforeAll(async () => {
        const c = await term.pos('POST', `/sortiments/${sid}/article/G-1`, {
          body: article('G-1', { GroupId: 'BEER' }),
        });
        expect(c.statusCode).toBe(200);
      });

      it('another group in the groupId query alone', async () => {
        const res = await term.pos('PUT', `/sortiments/${sid}/article/G-1`, {
          query: { groupId: 'DRINKS' },
          body: article('G-1'),
        });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ ErrorId: 12007, ErrorText: GROUP_TEXT });
      });

      it('another group in the query and the body alike', async () => {
        const res = await term.pos('PUT', `/sortiments/${sid}/article/G-1`, {
          query: { groupId: 'DRINKS' },
          body: article('G-1', { GroupId: 'DRINKS' }),
        });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ ErrorId: 12007, ErrorText: GROUP_TEXT });
      });

      it('a group the sortiment does not hold is still 12007, not 12006', async () => {
        const res = await term.pos('PUT', `/sortiments/${sid}/article/G-1`, {
          query: { groupId: 'NO-SUCH-GROUP' },
          body: article('G-1'),
        });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ ErrorId: 12007 });
      });

      it('in XML, by query and by body', async () => {
        const xml =
          '<Article><PLU>G-1</PLU><GroupId>DRINKS</GroupId><Name><LocalizedText><lang>de</lang><val>G</val></LocalizedText></Name></Article>';
        const byBody = await term.pos('PUT', `/sortiments/${sid}/article/G-1`, { raw: xml, format: 'xml' });
        expect(byBody.statusCode).toBe(400);
        expect(byBody.headers['content-type']).toMatch(/application\/xml/);
        expect(byBody.body).toContain('<ErrorId>12007</ErrorId>');
        expect(byBody.body).toContain('Delete the item and create it again in the other group.');
        const byQuery = await term.pos('PUT', `/sortiments/${sid}/article/G-1`, {
          query: { groupId: 'DRINKS' },
          raw: xml.replace('<GroupId>DRINKS</GroupId>', ''),
          format: 'xml',
        });
        expect(byQuery.statusCode).toBe(400);
        expect(byQuery.body).toContain('<ErrorId>12007</ErrorId>');
      });

      it('an article in no group named with a group is 12007', async () => {
        await term.pos('POST', `/sortiments/${sid}/article/G-2`, { body: article('G-2') });
        const res = await term.pos('PUT', `/sortiments/${sid}/article/G-2`, {
          query: { groupId: 'BEER' },
          body: article('G-2'),
        });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({
          ErrorId: 12007,
          ErrorText: expect.stringContaining('Article G-2 is in no group.'),
        });
      });

      it('the article stays unchanged in its group; its own group in the query updates it', async () => {
        const before = await term.pos('GET', `/sortiments/${sid}/article/G-1`);
        expect(before.json()).toMatchObject({
          GroupId: 'BEER',
          Name: expect.arrayContaining([{ lang: 'de', val: 'Artikel G-1' }]),
        });
        const ok = await term.pos('PUT', `/sortiments/${sid}/article/G-1`, {
          query: { groupId: 'BEER' },
          body: article('G-1', { SoldOut: true }),
        });
        expect(ok.statusCode).toBe(200);
        const after = await term.pos('GET', `/sortiments/${sid}/article/G-1`);
        expect(after.json()).toMatchObject({ GroupId: 'BEER', SoldOut: true });
      });

      it('an unknown PLU with a groupId is still 12006 (use create instead)', async () => {
        const res = await term.pos('PUT', `/sortiments/${sid}/article/G-404`, {
          query: { groupId: 'BEER' },
          body: article('G-404'),
        });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ ErrorId: 12006 });
      });
    });

    it('read of an unknown article is 404 / 12006', async () => {
      const res = await term.pos('GET', `/sortiments/${sid}/article/NOPE`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ ErrorId: 12006 });
    });

    it('delete answers 200 empty; delete of an unknown or other-group PLU is 400 / 12006', async () => {
      await term.pos('POST', `/sortiments/${sid}/article/D-1`, { body: article('D-1', { GroupId: 'BEER' }) });
      const wrongGroup = await term.pos('DELETE', `/sortiments/${sid}/article/D-1`, {
        query: { groupId: 'DRINKS' },
      });
      expect(wrongGroup.json()).toMatchObject({ ErrorId: 12006 });
      const ok = await term.pos('DELETE', `/sortiments/${sid}/article/D-1`, { query: { groupId: 'BEER' } });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toBe('');
      const again = await term.pos('DELETE', `/sortiments/${sid}/article/D-1`);
      expect(again.statusCode).toBe(400);
      expect(again.json()).toMatchObject({ ErrorId: 12006 });
    });

    it('a field of the wrong type is 400 / 1000 and stores nothing', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/article/W-1`, {
        body: article('W-1', { Allergens: ['gluten'] }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
      expect((await term.pos('GET', `/sortiments/${sid}/article/W-1`)).statusCode).toBe(404);
    });

    it('field names are matched case-insensitively', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/article/CI-1`, {
        body: {
          plu: 'CI-1',
          name: [{ LANG: 'de', VAL: 'klein' }],
          prices: [{ value: '1.50', currencyiso: 'eur' }],
        },
      });
      expect(res.statusCode).toBe(200);
      const read = await term.pos('GET', `/sortiments/${sid}/article/CI-1`);
      expect(read.json()).toMatchObject({
        Name: [{ lang: 'de', val: 'klein' }],
        Prices: [{ Value: 1.5, CurrencyIso: 'EUR' }],
      });
    });

    it('create, read and update work in XML (DataContract style included)', async () => {
      const xml =
        '<Article xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns:a="http://schemas.microsoft.com/2003/10/Serialization/Arrays">' +
        '<PLU>X-100</PLU><GroupId>BEER</GroupId>' +
        '<Name><LocalizedText><lang>de</lang><val>Radler%20%26%20Co</val></LocalizedText></Name>' +
        '<Prices><Price><Value>3.40</Value><CurrencyIso>EUR</CurrencyIso></Price></Prices>' +
        '<Allergens><a:int>1</a:int><a:int>7</a:int></Allergens>' +
        '<Tags><a:string>mixed</a:string></Tags><SoldOut>false</SoldOut><PictureUrl i:nil="true"/>' +
        '<NutritionFacts><KCal>42</KCal></NutritionFacts><VatInPercent>19</VatInPercent></Article>';
      const c = await term.pos('POST', `/sortiments/${sid}/article/X-100`, { raw: xml, format: 'xml' });
      expect(c.statusCode).toBe(200);
      const r = await term.pos('GET', `/sortiments/${sid}/article/X-100`, { format: 'xml' });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toMatch(/application\/xml/);
      expect(r.body).toContain('<Article><PLU>X-100</PLU>');
      expect(r.body).toContain(
        '<Name><LocalizedText><lang>de</lang><val>Radler &amp; Co</val></LocalizedText></Name>',
      );
      expect(r.body).toContain(
        '<Prices><Price><Value>3.4</Value><CurrencyIso>EUR</CurrencyIso></Price></Prices>',
      );
      expect(r.body).toContain('<Allergens><int>1</int><int>7</int></Allergens>');
      expect(r.body).toContain('<AllergenInfo><Allergen><Code>1</Code>');
      const missing = await term.pos('POST', `/sortiments/${sid}/article/X-101`, {
        raw: '<Article><PLU>X-101</PLU></Article>',
        format: 'xml',
      });
      expect(missing.statusCode).toBe(400);
      expect(missing.body).toContain('<ErrorId>12005</ErrorId>');
      const u = await term.pos('PUT', `/sortiments/${sid}/article/X-100`, {
        raw: xml.replace('<SoldOut>false</SoldOut>', '<SoldOut>true</SoldOut>'),
        format: 'xml',
      });
      expect(u.statusCode).toBe(200);
      const d = await term.pos('DELETE', `/sortiments/${sid}/article/X-100`, { format: 'xml' });
      expect(d.statusCode).toBe(200);
    });

    it('a gzip-compressed article body is accepted', async () => {
      const res = await term.pos('POST', `/sortiments/${sid}/article/GZ-1`, {
        body: article('GZ-1', { Description: [{ lang: 'de', val: 'x'.repeat(5000) }] }),
        gzip: true,
      });
      expect(res.statusCode).toBe(200);
      expect((await term.pos('GET', `/sortiments/${sid}/article/GZ-1`)).statusCode).toBe(200);
    });
  });

  describe('digital-menu reads', () => {
    it('lists articles in PLU order, paged, with Total', async () => {
      const s = (
        (await lookup({ thirdPartySortimentIdentifier: 'ERP-paging' })).json() as {
          serviceSortimentId: string;
        }
      ).serviceSortimentId;
      for (const plu of ['3', '1', '2', '5', '4']) {
        await term.pos('POST', `/sortiments/${s}/article/${plu}`, { body: article(plu, { Allergens: [7] }) });
      }
      const page2 = await term.pos('GET', `/sortiments/${s}/articles`, {
        query: { page: '2', pageSize: '2' },
      });
      expect(page2.statusCode).toBe(200);
      const body = page2.json() as {
        Page: number;
        PageSize: number;
        Total: number;
        Articles: { PLU: string }[];
      };
      expect(body).toMatchObject({ Page: 2, PageSize: 2, Total: 5 });
      expect(body.Articles.map((a) => a.PLU)).toEqual(['3', '4']);
      const xml = await term.pos('GET', `/sortiments/${s}/articles`, {
        query: { pageSize: '1' },
        format: 'xml',
      });
      expect(xml.body).toContain(
        '<ArticlePage><Page>1</Page><PageSize>1</PageSize><Total>5</Total><Articles><Article><PLU>1</PLU>',
      );
    });

    it('a pageSize above 1000 is 400 / 1000', async () => {
      const res = await term.pos('GET', `/sortiments/${sid}/articles`, { query: { pageSize: '5000' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
    });

    it('ETag follows the sortiment version; If-None-Match answers 304 until a change', async () => {
      const s = (
        (await lookup({ thirdPartySortimentIdentifier: 'ERP-etag' })).json() as { serviceSortimentId: string }
      ).serviceSortimentId;
      await term.pos('POST', `/sortiments/${s}/article/E1`, { body: article('E1') });
      const first = await term.pos('GET', `/sortiments/${s}/articles`);
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^"v\d+-json-en"$/);
      const cached = await term.pos('GET', `/sortiments/${s}/articles`, {
        headers: { 'if-none-match': etag },
      });
      expect(cached.statusCode).toBe(304);
      expect(cached.body).toBe('');
      const single = await term.pos('GET', `/sortiments/${s}/article/E1`, {
        headers: { 'if-none-match': etag },
      });
      expect(single.statusCode).toBe(304);
      // Another representation has another ETag.
      const xml = await term.pos('GET', `/sortiments/${s}/articles`, {
        format: 'xml',
        headers: { 'if-none-match': etag },
      });
      expect(xml.statusCode).toBe(200);
      // An update that changes nothing keeps the ETag; a real change moves it.
      await term.pos('PUT', `/sortiments/${s}/article/E1`, { body: article('E1') });
      expect(
        (await term.pos('GET', `/sortiments/${s}/articles`, { headers: { 'if-none-match': etag } }))
          .statusCode,
      ).toBe(304);
      await term.pos('PUT', `/sortiments/${s}/article/E1`, { body: article('E1', { SoldOut: true }) });
      const changed = await term.pos('GET', `/sortiments/${s}/articles`, {
        headers: { 'if-none-match': etag },
      });
      expect(changed.statusCode).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
    });
  });
});
