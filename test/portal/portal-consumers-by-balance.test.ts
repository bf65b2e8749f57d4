import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { type PortalSession, newPortalSession, portalCall, portalPage } from './portal-support.js';

interface Listed {
  profileId: number;
  fullName: string | null;
  balanceMinor: number;
}
interface Page {
  data: Listed[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * docs/decisions.md, "All customers, page by page": the customer list by balance, the highest
 * first, ties by id, page by page with cursors of its own; the page offers either order.
 */
describe.each(databases)('customers by balance (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    owner = await newPortalSession(t, term.serviceUserName, {
      email: `owner-${kind}@by-balance.test`,
      password: 'a-long-enough-password',
    });
    // Five customers, each with a card loaded at the till; two hold the same 50.00.
    const balances: [string, string | null][] = [
      ['Anna Kunde', '10.00'],
      ['Ben Kunde', '50.00'],
      ['Cem Kunde', '50.00'],
      ['Dora Kunde', null],
      ['Emil Gast', '25.00'],
    ];
    for (const [name, amount] of balances) {
      const p = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
        fullName: name,
      });
      expect(p.statusCode, p.body).toBe(201);
      const id = (p.json() as { id: number }).id;
      ids[name] = id;
      const card = `BAL-${kind}-${id}`;
      expect((await t.admin('POST', `/profiles/${id}/tokens`, { tokenId: card })).statusCode).toBe(200);
      if (amount !== null) expect((await tokens(term).add(card, amount)).statusCode).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const list = async (query: string) => {
    const res = await portalCall(t, owner, 'GET', `/consumers${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Page;
  };

  it('the highest balance first, equal balances by id, the balances as the ledger keeps them', async () => {
    const page = await list('?sort=balance&limit=100');
    expect(page.data.map((c) => [c.fullName, c.balanceMinor])).toEqual([
      ['Ben Kunde', 5_000],
      ['Cem Kunde', 5_000],
      ['Emil Gast', 2_500],
      ['Anna Kunde', 1_000],
      ['Dora Kunde', 0],
    ]);
    // By id, as before, without sort or with sort=id.
    const byId = [ids['Anna Kunde'], ids['Ben Kunde'], ids['Cem Kunde'], ids['Dora Kunde'], ids['Emil Gast']];
    expect((await list('?limit=100')).data.map((c) => c.profileId)).toEqual(byId);
    expect((await list('?sort=id&limit=100')).data.map((c) => c.profileId)).toEqual(byId);
    // With a search: those found, in the same order.
    expect((await list('?q=kunde&sort=balance')).data.map((c) => c.fullName)).toEqual([
      'Ben Kunde',
      'Cem Kunde',
      'Anna Kunde',
      'Dora Kunde',
    ]);
  });

  it('page by page, one at a time: every customer once, in the same order, the tie split across pages', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list(`?sort=balance&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.data.map((c) => c.fullName ?? ''));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(['Ben Kunde', 'Cem Kunde', 'Emil Gast', 'Anna Kunde', 'Dora Kunde']);
  });

  it("refuses another order's cursor and an order it does not know, changing nothing", async () => {
    const byId = await list('?limit=1');
    const mixed = await portalCall(t, owner, 'GET', `/consumers?sort=balance&cursor=${byId.nextCursor}`);
    expect(mixed.statusCode).toBe(400);
    expect((mixed.json() as { error: { code: string } }).error.code).toBe('invalid_cursor');
    const unknown = await portalCall(t, owner, 'GET', '/consumers?sort=name');
    expect(unknown.statusCode).toBe(400);
    expect((unknown.json() as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it('the page of all customers lists them in the order chosen and links the other', async () => {
    const byId = await portalPage(t, owner, '/portal/cards?all=1');
    expect(byId.body).toContain('href="/portal/cards?all=1&amp;sort=balance#consumers"');
    const byBalance = await portalPage(t, owner, '/portal/cards?all=1&sort=balance');
    expect(byBalance.statusCode).toBe(200);
    const names = [...byBalance.body.matchAll(/href="\/portal\/profiles\/\d+"\s*>([^<]+)</g)].map(
      (m) => m[1],
    );
    expect(names).toEqual(['Ben Kunde', 'Cem Kunde', 'Emil Gast', 'Anna Kunde', 'Dora Kunde']);
    expect(byBalance.body).toContain('href="/portal/cards?all=1#consumers"');
  });
});
