import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestApp,
  type Terminal,
  databases,
  setupTerminal,
  sortimentIdOf,
  startApp,
} from '../support/harness.js';
import { type PortalSession, basket, portalCall, portalSession } from './portal-support.js';

interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

const OWNER = { email: 'owner@paging.example', password: 'a-long-enough-password' };

// docs/decisions.md, "Paging": every list of every API takes `limit` and `cursor` and answers
// `{data, hasMore, nextCursor}`; the next page starts after the last row given out.
describe.each(databases)("the portal's article search and dry-run baskets page one way, on %s", (kind) => {
  let t: TestApp;
  let till: Terminal;
  let s: PortalSession;
  let sid: number;

  async function pageThrough<T>(url: string, limit: number): Promise<{ sizes: number[]; rows: T[] }> {
    const sizes: number[] = [];
    const rows: T[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const sep = url.includes('?') ? '&' : '?';
      const more = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const res = await portalCall(t, s, 'GET', `${url}${sep}limit=${limit}${more}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as Page<T>;
      expect(page.hasMore).toBe(page.nextCursor !== null);
      sizes.push(page.data.length);
      rows.push(...page.data);
      if (page.nextCursor === null) return { sizes, rows };
      cursor = page.nextCursor;
    }
    throw new Error('more than 20 pages');
  }

  beforeAll(async () => {
    t = await startApp(kind);
    till = await setupTerminal(t);
    const users = `/merchants/${encodeURIComponent(till.serviceUserName)}/portalUsers`;
    expect((await t.admin('POST', users, OWNER)).statusCode).toBe(201);
    s = await portalSession(t, OWNER.email, OWNER.password);
    const serviceId = await sortimentIdOf(till, `menu-${kind}`);
    const upload = await till.pos('POST', `/sortiments/${serviceId}/bulkUpload`, {
      query: { changedArticlesOnly: 'false' },
      body: {
        Articles: ['1001', '1002', '1003', ...Array.from({ length: 102 }, (_, i) => String(2000 + i))].map(
          (plu) => ({
            PLU: plu,
            Name: [{ lang: 'en', val: plu.startsWith('1') ? `Coffee ${plu}` : `Cake ${plu}` }],
            Prices: [{ Value: 3.2, CurrencyIso: 'EUR' }],
          }),
        ),
      },
    });
    expect(upload.statusCode, upload.body).toBe(200);
    const catalog = await portalCall(t, s, 'GET', '/catalog');
    sid = (catalog.json() as { sortiments: { id: number }[] }).sortiments[0]?.id ?? 0;
  });
  afterAll(() => t?.close());

  it('the article search pages in PLU order, each article once, the search kept across pages', async () => {
    const all = await pageThrough<{ plu: string }>(`/sortiments/${sid}/articles`, 50);
    expect(all.sizes).toEqual([50, 50, 5]);
    expect(all.rows.map((r) => r.plu)).toEqual([
      '1001',
      '1002',
      '1003',
      ...Array.from({ length: 102 }, (_, i) => String(2000 + i)),
    ]);
    const coffee = await pageThrough<{ plu: string }>(`/sortiments/${sid}/articles?search=Coffee`, 2);
    expect(coffee.sizes).toEqual([2, 1]);
    expect(coffee.rows.map((r) => r.plu)).toEqual(['1001', '1002', '1003']);
  });

  it("the article search finds the text in the articles' names, not in how they are stored", async () => {
    const plus = async (search: string) =>
      (
        await pageThrough<{ plu: string }>(
          `/sortiments/${sid}/articles?search=${encodeURIComponent(search)}`,
          50,
        )
      ).rows.map((r) => r.plu);
    // Every name is stored as [{"lang":"en","val":"..."}]: its keys, its language and its quotes are
    // not part of any article's name.
    for (const search of ['val', 'lang', 'en', '"', '{']) expect(await plus(search), search).toEqual([]);
    expect(await plus('cake 2100')).toEqual(['2100']);
    expect(await plus('ffee 100')).toEqual(['1001', '1002', '1003']);
  });

  it('the article search finds names with quotes, backslashes and umlauts, in any of their languages, accented letters read as plain ones', async () => {
    const posId = await sortimentIdOf(till, `names-${kind}`);
    const upload = await till.pos('POST', `/sortiments/${posId}/bulkUpload`, {
      query: { changedArticlesOnly: 'false' },
      body: {
        Articles: [
          ['1', [{ lang: 'de', val: 'Espresso "doppio"' }]],
          [
            '2',
            [
              { lang: 'de', val: 'Käsekuchen' },
              { lang: 'en', val: 'Cheesecake' },
            ],
          ],
          ['3', [{ lang: 'en', val: 'Tea \\ lemon 50%_off' }]],
          ['4', [{ lang: 'fr', val: 'Café crème' }]],
          ['5', [{ lang: 'fr', val: 'Œuf mayonnaise' }]],
        ].map(([plu, name]) => ({ PLU: plu, Name: name, Prices: [{ Value: 3, CurrencyIso: 'EUR' }] })),
      },
    });
    expect(upload.statusCode, upload.body).toBe(200);
    const catalog = await portalCall(t, s, 'GET', '/catalog');
    const names = (catalog.json() as { sortiments: { id: number; identifier: string }[] }).sortiments.find(
      (x) => x.identifier === `names-${kind}`,
    );
    const plus = async (search: string) =>
      (
        await pageThrough<{ plu: string }>(
          `/sortiments/${names?.id}/articles?search=${encodeURIComponent(search)}`,
          50,
        )
      ).rows.map((r) => r.plu);
    expect(await plus('"doppio"')).toEqual(['1']);
    expect(await plus('KÄSE')).toEqual(['2']);
    expect(await plus('cheese')).toEqual(['2']);
    expect(await plus('\\')).toEqual(['3']);
    expect(await plus('50%_')).toEqual(['3']);
    expect(await plus('0%o')).toEqual([]);
    expect(await plus('kase')).toEqual(['2']);
    expect(await plus('KAESEKUCHEN')).toEqual(['2']);
    expect(await plus('oeuf mayo')).toEqual(['5']);
    expect(await plus('œuf')).toEqual(['5']);
    expect(await plus('cafe creme')).toEqual(['4']);
    expect(await plus('CAFÉ CRÈME')).toEqual(['4']);
    expect(await plus('Cafè')).toEqual(['4']);
    expect(await plus('cafes')).toEqual([]);
  });

  it('the catalog page shows 100 articles and links the next page, which shows the rest and links the first', async () => {
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
    const first = await get(`/portal/catalog?sortimentId=${sid}`);
    expect(first.statusCode).toBe(200);
    // The PLU cell of each article listed (its attributes whatever they are).
    const plus = (body: string) => [...body.matchAll(/<td[^>]*>((1|2)\d{3})<\/td>/g)].map((m) => m[1]);
    expect(plus(first.body)).toHaveLength(100);
    const next = /<a rel="next" href="([^"]+)"/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toMatch(/^\/portal\/catalog\?sortimentId=\d+&search=&cursor=/);
    const second = await get(next ?? '');
    expect(second.statusCode).toBe(200);
    expect(plus(second.body)).toEqual(['2097', '2098', '2099', '2100', '2101']);
    expect(second.body).not.toContain('rel="next"');
    expect(second.body).toContain(`href="/portal/catalog?sortimentId=${sid}&amp;search="`);
  });

  it('the baskets a dry run starts from page newest first, each basket once', async () => {
    const base = t.clock.nowMs();
    for (let i = 0; i < 5; i++) {
      const res = await till.pos('POST', `/baskets/paging-${i}`, { body: basket(base - i * 60_000) });
      expect(res.statusCode, res.body).toBe(200);
    }
    const { sizes, rows } = await pageThrough<{ basketId: string; instanceName: string }>(
      '/dryRun/baskets',
      2,
    );
    expect(sizes).toEqual([2, 2, 1]);
    expect(rows.map((r) => r.basketId)).toEqual(['paging-0', 'paging-1', 'paging-2', 'paging-3', 'paging-4']);
  });

  it('a cursor of another list, a made-up one, or a limit out of bounds is refused and changes nothing', async () => {
    const first = (await portalCall(t, s, 'GET', '/dryRun/baskets?limit=1')).json() as Page<unknown>;
    const other = await portalCall(t, s, 'GET', `/sortiments/${sid}/articles?cursor=${first.nextCursor}`);
    expect(other.statusCode).toBe(400);
    expect(other.json()).toMatchObject({ error: { code: 'invalid_cursor' } });
    // A cursor named for the list but holding values of other kinds (made up, never given out):
    // refused as any other, never a failure of the server.
    const forged = (list: string, ...key: unknown[]) =>
      Buffer.from(JSON.stringify([list, ...key]), 'utf8').toString('base64url');
    for (const url of [
      `/consumers?q=ab&cursor=${forged('consumers', 'x')}`,
      `/users?cursor=${forged('users', 'x')}`,
      `/webhookDeliveries?cursor=${forged('webhookDeliveries', 'x')}`,
      `/checkoutClients?cursor=${forged('checkoutClients', 'x')}`,
      `/webhooks?cursor=${forged('webhooks', 'x', 'y')}`,
      `/terminals?cursor=${forged('terminals', 'x', 'y')}`,
      `/campaigns?cursor=${forged('campaigns', 'x')}`,
      `/loyaltySchemes?cursor=${forged('schemes', 'x')}`,
      `/orders?cursor=${forged('portalOrders', 1, 2)}`,
      `/baskets?cursor=${forged('portalBaskets', 'x', 'y', 'z')}`,
      `/sortiments/${sid}/articles?cursor=${forged('portalArticles', 1)}`,
      `/dryRun/baskets?cursor=${forged('portalDryRunBaskets', 1, 2, 3)}`,
    ]) {
      const res = await portalCall(t, s, 'GET', url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(res.json()).toMatchObject({ error: { code: 'invalid_cursor' } });
    }
    const big = await portalCall(t, s, 'GET', '/dryRun/baskets?limit=101');
    expect(big.statusCode).toBe(400);
    expect(big.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });
});
