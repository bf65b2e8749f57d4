import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArticleGroups } from '../../src/sortiment/article-groups.store.js';
import {
  type TestApp,
  type Terminal,
  databases,
  merchantIdOf,
  posCall,
  setupTerminal,
  sortimentIdOf,
  startApp,
} from '../support/harness.js';

function article(plu: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    PLU: plu,
    Name: [{ lang: 'de', val: `Artikel ${plu}` }],
    Prices: [{ Value: 2.5, CurrencyIso: 'EUR' }],
    ...extra,
  };
}

describe.each(databases)('sortiment bulk upload on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let merchantId: number;

  const newSortiment = (name: string): Promise<string> => sortimentIdOf(term, `${name}-${kind}`);
  const bulk = (
    sid: string,
    changedArticlesOnly: boolean,
    body: unknown,
    extra: Record<string, unknown> = {},
  ) =>
    term.pos('POST', `/sortiments/${sid}/bulkUpload`, {
      query: { changedArticlesOnly: String(changedArticlesOnly) },
      body,
      ...extra,
    });
  const plus = async (sid: string): Promise<string[]> => {
    const rows = await t.database.db
      .selectFrom('sortiment_articles')
      .select('plu')
      .where('sortiment_id', '=', Number(sid))
      .orderBy('plu')
      .execute();
    return rows.map((r) => r.plu);
  };
  const version = async (sid: string): Promise<number> =>
    (
      await t.database.db
        .selectFrom('sortiments')
        .select('version')
        .where('id', '=', Number(sid))
        .executeTakeFirstOrThrow()
    ).version;

  beforeAll(async () => {
    t = await startApp(kind, { bulkBodyLimitBytes: 2 * 1024 * 1024 });
    term = await setupTerminal(t);
    merchantId = await merchantIdOf(t, term);
  });
  afterAll(() => t?.close());

  it('a full upload creates; the same again changes nothing and keeps the version', async () => {
    const sid = await newSortiment('full');
    const body = {
      Groups: [{ Id: 'G', Name: [{ lang: 'de', val: 'Gruppe' }] }],
      Articles: [article('1', { GroupId: 'G' }), article('2'), article('3')],
    };
    const first = await bulk(sid, false, body);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ Created: 3, Updated: 0, Deleted: 0, Unchanged: 0 });
    const v = await version(sid);
    const again = await bulk(sid, false, body);
    expect(again.json()).toEqual({ Created: 0, Updated: 0, Deleted: 0, Unchanged: 3 });
    expect(await version(sid)).toBe(v);
  });

  it('unchanged articles are not rewritten (their row version stays)', async () => {
    const sid = await newSortiment('xmin');
    await bulk(sid, false, { Articles: [article('1'), article('2')] });
    const xmins = async () =>
      (
        await sql<{ plu: string; x: string }>`
        SELECT plu, xmin::text AS x FROM sortiment_articles WHERE sortiment_id = ${Number(sid)} ORDER BY plu`.execute(
          t.database.db,
        )
      ).rows;
    const before = await xmins();
    const res = await bulk(sid, false, { Articles: [article('1'), article('2', { SoldOut: true })] });
    expect(res.json()).toEqual({ Created: 0, Updated: 1, Deleted: 0, Unchanged: 1 });
    const after = await xmins();
    expect(after[0]).toEqual(before[0]);
    expect(after[1]?.x).not.toBe(before[1]?.x);
  });

  it('texts with backslashes, quotes, tabs and line ends are stored and read back as sent', async () => {
    const sid = await newSortiment('escapes');
    const name = 'Tab\there, line\nend\r\n, back\\slash \\N "quoted" Käse 🥨';
    const res = await bulk(sid, false, {
      Groups: [{ Id: 'G\\1' }],
      Articles: [article('A\\1', { GroupId: 'G\\1', Name: [{ lang: 'de', val: name }] })],
    });
    expect(res.statusCode).toBe(200);
    const read = await term.pos('GET', `/sortiments/${sid}/articles?page=1&pageSize=10`);
    expect(read.json()).toMatchObject({
      Articles: [{ PLU: 'A\\1', GroupId: 'G\\1', Name: [{ lang: 'de', val: name }] }],
    });
  });

  it('changedArticlesOnly=false deletes the articles missing from the body', async () => {
    const sid = await newSortiment('replace');
    await bulk(sid, false, { Articles: [article('1'), article('2'), article('3')] });
    const res = await bulk(sid, false, {
      Articles: [article('2'), article('3', { SoldOut: true }), article('4')],
    });
    expect(res.json()).toEqual({ Created: 1, Updated: 1, Deleted: 1, Unchanged: 1 });
    expect(await plus(sid)).toEqual(['2', '3', '4']);
  });

  it('changedArticlesOnly=true upserts and deletes nothing', async () => {
    const sid = await newSortiment('upsert');
    await bulk(sid, false, { Articles: [article('1'), article('2')] });
    const res = await bulk(sid, true, { Articles: [article('2', { SoldOut: true }), article('3')] });
    expect(res.json()).toEqual({ Created: 1, Updated: 1, Deleted: 0, Unchanged: 0 });
    expect(await plus(sid)).toEqual(['1', '2', '3']);
  });

  it('all or nothing: every invalid item is listed with its PLU and nothing changes', async () => {
    const sid = await newSortiment('invalid');
    await bulk(sid, false, { Articles: [article('keep')] });
    const v = await version(sid);
    const res = await bulk(sid, false, {
      Groups: [{ Id: 'G' }, { Id: 'H', UpGroupId: 'NOPE' }],
      Articles: [
        article('ok-1'),
        { Name: [{ lang: 'de', val: 'no PLU' }] },
        { PLU: 'no-name' },
        article('dup'),
        article('dup'),
        article('bad-group', { GroupId: 'MISSING' }),
        article('bad-price', { Prices: [{ Value: -1 }] }),
        article('bad-allergen', { Allergens: ['x'] }),
        article('ok-2', { GroupId: 'G' }),
      ],
    });
    expect(res.statusCode).toBe(400);
    const body = res.json() as {
      ErrorId: number;
      Errors: { PLU: string; ErrorId: number; ErrorText: string }[];
    };
    expect(body.ErrorId).toBe(1000);
    expect(body.Errors.map((e) => [e.PLU, e.ErrorId]).sort()).toEqual(
      [
        ['', 12008],
        ['no-name', 12005],
        ['dup', 12009],
        ['bad-group', 12003],
        ['bad-price', 1000],
        ['bad-allergen', 1000],
        ['', 12003],
      ].sort(),
    );
    expect(body.Errors.every((e) => e.ErrorText.length > 0)).toBe(true);
    expect(await plus(sid)).toEqual(['keep']);
    expect(await version(sid)).toBe(v);
  });

  it('groups: hierarchy through UpGroupId, a cycle is refused, full replacement replaces groups', async () => {
    const sid = await newSortiment('groups');
    const ok = await bulk(sid, false, {
      Groups: [
        { Id: 'BEER', UpGroupId: 'DRINKS' },
        { Id: 'DRINKS', Name: [{ lang: 'de', val: 'Getränke' }] },
        { Id: 'WHEAT', UpGroupId: 'BEER' },
      ],
      Articles: [article('w1', { GroupId: 'WHEAT' }), article('x1')],
    });
    expect(ok.statusCode).toBe(200);
    const groups = await loadArticleGroups(t.database.db, merchantId, Number(sid), ['w1', 'x1', 'unknown']);
    expect(Object.fromEntries(groups)).toEqual({ w1: ['WHEAT', 'BEER', 'DRINKS'], x1: [] });

    const cycle = await bulk(sid, true, { Groups: [{ Id: 'DRINKS', UpGroupId: 'WHEAT' }] });
    expect(cycle.statusCode).toBe(400);
    expect(cycle.json()).toMatchObject({ ErrorId: 1000, Errors: [{ PLU: '', ErrorId: 1000 }] });

    const duplicate = await bulk(sid, true, { Groups: [{ Id: 'A' }, { Id: 'A' }] });
    expect(duplicate.json()).toMatchObject({ Errors: [{ ErrorId: 12010 }] });

    const replaced = await bulk(sid, false, {
      Groups: [{ Id: 'FOOD' }],
      Articles: [article('f1', { GroupId: 'FOOD' })],
    });
    expect(replaced.json()).toEqual({ Created: 1, Updated: 0, Deleted: 2, Unchanged: 0 });
    const left = await t.database.db
      .selectFrom('sortiment_groups')
      .select('id')
      .where('sortiment_id', '=', Number(sid))
      .execute();
    expect(left.map((g) => g.id)).toEqual(['FOOD']);
  });

  it('an article may move to another group by bulk upload', async () => {
    const sid = await newSortiment('move');
    await bulk(sid, false, {
      Groups: [{ Id: 'A' }, { Id: 'B' }],
      Articles: [article('1', { GroupId: 'A' })],
    });
    const res = await bulk(sid, true, { Articles: [article('1', { GroupId: 'B' })] });
    expect(res.json()).toMatchObject({ Updated: 1 });
    const groups = await loadArticleGroups(t.database.db, merchantId, Number(sid), ['1']);
    expect(groups.get('1')).toEqual(['B']);
  });

  it('loadArticleGroups does not see another merchant', async () => {
    const sid = await newSortiment('tenancy');
    await bulk(sid, false, { Groups: [{ Id: 'A' }], Articles: [article('1', { GroupId: 'A' })] });
    const groups = await loadArticleGroups(t.database.db, merchantId + 100_000, Number(sid), ['1']);
    expect(groups.size).toBe(0);
  });

  it('works in XML, DataContract style', async () => {
    const sid = await newSortiment('xml');
    const xml =
      '<BulkUpload xmlns:a="http://schemas.microsoft.com/2003/10/Serialization/Arrays">' +
      '<Groups><Group><Id>G</Id><Name><LocalizedText><lang>de</lang><val>G</val></LocalizedText></Name></Group></Groups>' +
      '<Articles>' +
      '<Article><PLU>1</PLU><GroupId>G</GroupId><Name><LocalizedText><lang>de</lang><val>Eins</val></LocalizedText></Name>' +
      '<Prices><Price><Value>1.20</Value></Price></Prices><Allergens><a:int>3</a:int></Allergens></Article>' +
      '<Article><PLU>2</PLU><Name><LocalizedText><lang>de</lang><val>Zwei</val></LocalizedText></Name></Article>' +
      '</Articles></BulkUpload>';
    const res = await bulk(sid, false, xml, { format: 'xml' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(
      '<BulkUploadResult><Created>2</Created><Updated>0</Updated><Deleted>0</Deleted><Unchanged>0</Unchanged></BulkUploadResult>',
    );
    const read = await term.pos('GET', `/sortiments/${sid}/article/1`);
    expect(read.json()).toMatchObject({
      GroupId: 'G',
      Prices: [{ Value: 1.2, CurrencyIso: 'EUR' }],
      Allergens: [3],
    });
    const invalid = await bulk(
      sid,
      false,
      '<BulkUpload><Articles><Article><PLU>3</PLU></Article></Articles></BulkUpload>',
      {
        format: 'xml',
      },
    );
    expect(invalid.statusCode).toBe(400);
    expect(invalid.body).toContain('<Errors><Error><PLU>3</PLU><ErrorId>12005</ErrorId>');
  });

  it('accepts a gzip-compressed body', async () => {
    const sid = await newSortiment('gzip');
    const articles = Array.from({ length: 500 }, (_, i) =>
      article(`g-${i}`, { Description: [{ lang: 'de', val: 'x'.repeat(200) }] }),
    );
    const res = await bulk(sid, false, { Articles: articles }, { gzip: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ Created: 500 });
  });

  it('a body above the bulk limit after decompression is 413 / 1008, even gzip-compressed', async () => {
    const sid = await newSortiment('limit');
    const articles = Array.from({ length: 3000 }, (_, i) =>
      article(`l-${i}`, { Description: [{ lang: 'de', val: 'x'.repeat(1000) }] }),
    );
    const res = await bulk(sid, false, { Articles: articles }, { gzip: true });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ ErrorId: 1008 });
    const plain = await bulk(sid, false, { Articles: articles });
    expect(plain.statusCode).toBe(413);
    expect(plain.json()).toMatchObject({ ErrorId: 1008 });
    expect(await plus(sid)).toEqual([]);
  });

  it('without changedArticlesOnly is 400 / 1000 (a forgotten flag must not delete a sortiment)', async () => {
    const sid = await newSortiment('flag');
    const res = await term.pos('POST', `/sortiments/${sid}/bulkUpload`, {
      body: { Articles: [article('1')] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1000 });
  });

  it('two bulk uploads of one sortiment at once (two terminals) both apply, one after the other', async () => {
    const sid = await newSortiment('concurrent');
    const a = Array.from({ length: 300 }, (_, i) => article(`a-${i}`));
    const b = Array.from({ length: 300 }, (_, i) => article(`b-${i}`));
    // Each terminal runs one bulk upload at a time (bulk-limits.test.ts): the second comes from another.
    const r = await t.app.inject({
      method: 'GET',
      url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(term.serviceUserName)}&outletId=${term.outletId}&instanceName=Till%202`,
      headers: { devkey: term.devKey, accept: 'application/json' },
    });
    const unit2 = (r.json() as { trackingUnitId: string }).trackingUnitId;
    expect((await t.admin('POST', `/trackingUnits/${unit2}/activate`)).statusCode).toBe(200);
    const [ra, rb] = await Promise.all([
      bulk(sid, true, { Articles: a }),
      posCall(t, { devKey: term.devKey, trackingUnitId: unit2 }, 'POST', `/sortiments/${sid}/bulkUpload`, {
        query: { changedArticlesOnly: 'true' },
        body: { Articles: b },
      }),
    ]);
    expect(ra.statusCode).toBe(200);
    expect(rb.statusCode).toBe(200);
    expect((await plus(sid)).length).toBe(600);
  });

  // An article sent again byte for byte is known by the hash of its bytes and not read again
  // (docs/decisions.md, "Sortiment"); these are the cases where the stored row must not be trusted.
  it('an article changed by a single update is written again by the same bulk body', async () => {
    const sid = await newSortiment('raw-update');
    const body = { Articles: [article('1'), article('2'), article('3')] };
    expect((await bulk(sid, false, body)).statusCode).toBe(200);
    const put = await term.pos('PUT', `/sortiments/${sid}/article/2`, {
      body: article('2', { Name: [{ lang: 'de', val: 'Anders' }] }),
    });
    expect(put.statusCode).toBe(200);
    const again = await bulk(sid, false, body);
    expect(again.json()).toEqual({ Created: 0, Updated: 1, Deleted: 0, Unchanged: 2 });
    const read = await term.pos('GET', `/sortiments/${sid}/article/2`);
    expect(read.json()).toMatchObject({ Name: [{ lang: 'de', val: 'Artikel 2' }] });
  });

  it('an XML article sent again byte for byte is not read again; one changed is', async () => {
    const sid = await newSortiment('raw-xml');
    const xmlArticle = (plu: string, name: string) =>
      `<Article><PLU>${plu}</PLU><Name><LocalizedText><lang>de</lang><val>${name}</val></LocalizedText></Name></Article>`;
    const body = (second: string) =>
      `<BulkUpload><Articles>${xmlArticle('1', 'Eins')}${xmlArticle('2', second)}</Articles></BulkUpload>`;
    expect((await bulk(sid, false, body('Zwei'), { format: 'xml' })).statusCode).toBe(200);
    // A stored content hash that matches nothing: an article read again would be written again.
    await sql`UPDATE sortiment_articles SET content_hash = 'stale' WHERE sortiment_id = ${Number(sid)}`.execute(
      t.database.db,
    );
    const again = await bulk(sid, false, body('Zwo'), { format: 'xml' });
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain(
      '<Created>0</Created><Updated>1</Updated><Deleted>0</Deleted><Unchanged>1</Unchanged>',
    );
    const read = await term.pos('GET', `/sortiments/${sid}/article/2`);
    expect(read.json()).toMatchObject({ Name: [{ lang: 'de', val: 'Zwo' }] });
  });

  it('an unchanged article is refused when the upload removes its group, and when listed twice', async () => {
    const sid = await newSortiment('raw-checks');
    const inGroup = article('1', { GroupId: 'G' });
    const first = await bulk(sid, false, {
      Groups: [{ Id: 'G', Name: [{ lang: 'de', val: 'Gruppe' }] }],
      Articles: [inGroup, article('2')],
    });
    expect(first.statusCode).toBe(200);
    const noGroup = await bulk(sid, false, { Groups: [], Articles: [inGroup, article('2')] });
    expect(noGroup.statusCode).toBe(400);
    expect(noGroup.json()).toMatchObject({ Errors: [{ PLU: '1', ErrorId: 12003 }] });
    const twice = await bulk(sid, true, { Articles: [article('2'), article('2')] });
    expect(twice.statusCode).toBe(400);
    expect(twice.json()).toMatchObject({ Errors: [{ PLU: '2', ErrorId: 12009 }] });
    expect(await plus(sid)).toEqual(['1', '2']);
  });
});
