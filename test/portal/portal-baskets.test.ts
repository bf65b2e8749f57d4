import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { type Till, addTill } from './dashboard-trade.js';
import { type PortalSession, portalCall, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
/** 2026-11-02 00:00 in Berlin: ten days of trade from here on three tills of three outlets. */
const START = Date.parse('2026-11-01T23:00:00Z');
const DAY_MS = 86_400_000;

interface Made {
  basketId: string;
  billNumber: string | null;
  till: number;
  outletId: number;
  atMs: number;
  card: string | null;
  state: 'open' | 'granted' | 'returned';
}
interface Listing {
  trackingUnitId: string;
  instanceName: string | null;
  basketId: string;
  billNumber: string | null;
  outletId: number;
  outletName: string | null;
  timestamp: string;
  card: string | null;
  state: string;
}
interface Page {
  data: Listing[];
  hasMore: boolean;
  nextCursor: string | null;
}

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

describe.each(databases)('finding baskets in the portal (%s)', (kind) => {
  let t: TestApp;
  let owner: PortalSession;
  let tills: Till[];
  const made: Made[] = [];
  const units = new Map<string, string>();
  const cards = ['card-a', 'card-b', 'card-c'];
  let n = 0;

  async function sell(till: number, atMs: number, rnd: () => number): Promise<Made> {
    n += 1;
    const basketId = `b-${n}`;
    const billNumber = rnd() < 0.1 ? null : `R-${1000 + n}`;
    const card = rnd() < 0.4 ? (cards[Math.floor(rnd() * cards.length)] ?? null) : null;
    const granted = rnd() >= 0.1;
    const returned = granted && rnd() < 0.12;
    const pos = tills[till]?.pos;
    if (!pos) throw new Error('no till');
    t.clock.ms = atMs;
    const up = await pos('POST', `/baskets/${basketId}`, {
      body: {
        Timestamp: new Date(atMs).toISOString().replace('Z', '+00:00'),
        HasDiscounts: false,
        CurrencyISO: 'EUR',
        ...(billNumber ? { BillNumber: billNumber } : {}),
        Positions: [
          {
            PositionId: 1,
            ProductId: '1001',
            ProductName: 'Cappuccino',
            Unit: 0,
            Amount: 2,
            CurrentGrossPrice: 3.2,
          },
          {
            PositionId: 2,
            ProductId: '2001',
            ProductName: 'Croissant',
            Unit: 0,
            Amount: 1,
            CurrentGrossPrice: 2.8,
          },
        ],
      },
      ...(card ? { query: { consumerIdentToken: card } } : {}),
    });
    expect(up.statusCode, up.body).toBe(200);
    if (granted)
      expect((await pos('POST', `/baskets/${basketId}/grant`, { sign: basketId })).statusCode).toBe(200);
    if (returned) {
      const r = await pos('POST', `/baskets/${basketId}/return`, {
        body: { ReturnId: `ret-${basketId}`, Positions: [{ PositionId: 2, Amount: 1 }] },
        sign: `${basketId}ret-${basketId}`,
      });
      expect(r.statusCode, r.body).toBe(200);
    }
    const m: Made = {
      basketId,
      billNumber,
      till,
      outletId: tills[till]?.outletId ?? 0,
      atMs,
      card,
      state: !granted ? 'open' : returned ? 'returned' : 'granted',
    };
    made.push(m);
    return m;
  }

  const list = async (query: string): Promise<Page> => {
    const res = await portalCall(t, owner, 'GET', `/baskets?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Page;
  };

  /** Every page of a search, following nextCursor; `between` runs after each page. */
  const all = async (query: string, between?: () => Promise<void>): Promise<Listing[]> => {
    const rows: Listing[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const p: Page = await list(`${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      rows.push(...p.data);
      expect(p.hasMore).toBe(p.nextCursor !== null);
      cursor = p.nextCursor;
      pages += 1;
      if (between) await between();
    } while (cursor !== null && pages < 1000);
    return rows;
  };

  /** The made baskets a filter keeps, newest first as the list orders them (time, terminal, id). */
  const expected = (keep: (m: Made) => boolean) =>
    made
      .filter(keep)
      .sort(
        (a, b) =>
          b.atMs - a.atMs ||
          (units.get(String(b.till)) ?? '').localeCompare(units.get(String(a.till)) ?? '') ||
          (a.basketId < b.basketId ? 1 : -1),
      )
      .map((m) => m.basketId);

  beforeAll(async () => {
    t = await startApp(kind);
    const term = await setupTerminal(t, { timeZone: 'Europe/Berlin' });
    const u = encodeURIComponent(term.serviceUserName);
    const c = await t.admin('POST', `/merchants/${u}/campaigns`, {
      name: 'Cappuccino -20 %',
      type: 'product',
      products: [{ plu: '1001' }],
      discount: { percent: 20 },
    });
    expect(c.statusCode, c.body).toBe(201);
    for (const card of cards) expect((await tokens(term).register(card)).statusCode).toBe(200);
    tills = [
      { outletId: term.outletId, pos: term.pos },
      await addTill(t, term, 'Station'),
      await addTill(t, term, 'Harbour'),
    ];
    const rnd = random(7);
    for (let day = 0; day < 10; day += 1)
      for (let till = 0; till < tills.length; till += 1)
        for (let b = 0; b < 3 + Math.floor(rnd() * 3); b += 1)
          await sell(till, START + day * DAY_MS + (8 + b * 2) * 3_600_000 + till * 60_000, rnd);
    await t.admin('POST', `/merchants/${u}/portalUsers`, {
      email: `owner-${kind}@baskets.test`,
      password: PASSWORD,
    });
    owner = await portalSession(t, `owner-${kind}@baskets.test`, PASSWORD);
    // Which terminal each till is: the first basket of each tells.
    const first = await list('limit=100');
    for (let till = 0; till < tills.length; till += 1) {
      const m = made.find((x) => x.till === till);
      const found = (await list(`number=${m?.basketId ?? ''}`)).data[0];
      units.set(String(till), found?.trackingUnitId ?? '');
    }
    expect(first.data.length).toBe(100);
  }, 300_000);
  afterAll(() => t?.close());

  it('the trade has what the search must handle: three outlets, bills with and without number, cards, open, granted and returned baskets', () => {
    expect(made.length).toBeGreaterThan(100);
    expect(new Set(made.map((m) => m.outletId)).size).toBe(3);
    expect(made.some((m) => m.billNumber === null)).toBe(true);
    for (const s of ['open', 'granted', 'returned']) expect(made.some((m) => m.state === s)).toBe(true);
    expect(new Set(units.values()).size).toBe(3);
  });

  it('a basket is found by its bill number, and by its basket id, with the bill number, terminal name and outlet', async () => {
    const m = made.find((x) => x.billNumber !== null && x.till === 1 && x.state === 'returned') ?? made[0];
    if (!m?.billNumber) throw new Error('no basket with a bill number');
    const byBill = await list(`number=${m.billNumber}`);
    expect(byBill.data.map((x) => x.basketId)).toEqual([m.basketId]);
    expect(byBill.data[0]).toMatchObject({
      billNumber: m.billNumber,
      instanceName: 'Till Station',
      outletName: 'Station',
      state: 'returned',
      card: m.card,
    });
    expect((await list(`number=${m.basketId}`)).data.map((x) => x.billNumber)).toEqual([m.billNumber]);
    expect((await list('number=R-does-not-exist')).data).toEqual([]);
  });

  it('paging through every basket gives each once, in order, with no cap at 100', async () => {
    const rows = await all('limit=17');
    expect(rows.map((r) => r.basketId)).toEqual(expected(() => true));
  });

  it('baskets uploaded between the pages shift nothing: no basket twice, none of those there at the start missing', async () => {
    const before = expected(() => true);
    const rnd = random(99);
    let k = 0;
    const rows = await all('limit=13', async () => {
      // One basket newer than all, one in the middle of the period, on another till each time.
      k += 1;
      await sell(k % 3, START + 11 * DAY_MS + k * 60_000, rnd);
      await sell((k + 1) % 3, START + 4 * DAY_MS + 30 * 60_000 + k * 1000, rnd);
    });
    const ids = rows.map((r) => r.basketId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of before) expect(ids).toContain(id);
    const order = rows.map((r) => Date.parse(r.timestamp));
    expect(order).toEqual([...order].sort((a, b) => b - a));
  });

  it('filters combine: days, outlet, terminal, card and state', async () => {
    const from = START + 2 * DAY_MS;
    const to = START + 8 * DAY_MS;
    const time = `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
    const inTime = (m: Made) => m.atMs >= from && m.atMs < to;
    const station = tills[1]?.outletId ?? 0;
    const ids = async (q: string) => (await all(`limit=50&${q}`)).map((r) => r.basketId);
    expect(await ids(`${time}&outletId=${station}&state=granted`)).toEqual(
      expected((m) => inTime(m) && m.outletId === station && m.state === 'granted'),
    );
    expect(await ids(`${time}&trackingUnitId=${units.get('2') ?? ''}&card=card-b`)).toEqual(
      expected((m) => inTime(m) && m.till === 2 && m.card === 'card-b'),
    );
    expect(await ids('state=open')).toEqual(expected((m) => m.state === 'open'));
    expect(await ids('state=returned&card=card-a')).toEqual(
      expected((m) => m.state === 'returned' && m.card === 'card-a'),
    );
  });

  it('a cursor of another list, or a made-up one, is refused with 400 invalid_cursor', async () => {
    for (const key of [
      ['webhooks', 1, 'x'],
      ['portalBaskets', 'x', 'y', 'z'],
    ]) {
      const cursor = Buffer.from(JSON.stringify(key)).toString('base64url');
      const res = await portalCall(t, owner, 'GET', `/baskets?cursor=${cursor}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: { code: 'invalid_cursor' } });
    }
  });

  it("the basket page's data: line items with their rewards, bill number, terminal by name, outlet, card and state", async () => {
    const m = made.find(
      (x) => x.state === 'granted' && x.card !== null && x.billNumber !== null && x.till === 2,
    );
    if (!m) throw new Error('no such basket');
    const res = await portalCall(t, owner, 'GET', `/baskets/${units.get('2') ?? ''}/${m.basketId}`);
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json() as Record<string, unknown>;
    expect(d).toMatchObject({
      billNumber: m.billNumber,
      instanceName: 'Till Harbour',
      outletName: 'Harbour',
      card: m.card,
      cardType: 'customer',
      state: 'granted',
    });
    // 20 % of 2 x 3.20 on the cappuccinos: 1.28; nothing on the croissant.
    expect(d.positions).toEqual([
      {
        positionId: 1,
        plu: '1001',
        name: 'Cappuccino',
        amount: 2,
        unit: 0,
        unitPriceMinor: 320,
        lineMinor: 640,
        rewards: [expect.objectContaining({ name: 'Cappuccino -20 %', valueMinor: 128 })],
      },
      {
        positionId: 2,
        plu: '2001',
        name: 'Croissant',
        amount: 1,
        unit: 0,
        unitPriceMinor: 280,
        lineMinor: 280,
        rewards: [],
      },
    ]);
  });

  it('a basket whose till sent no TotalValue shows the total of its positions, as the dashboard counts sales, open or granted; a TotalValue that differs is marked beside it', async () => {
    const pos = tills[0]?.pos;
    if (!pos) throw new Error('no till');
    // A minute after the trade, while the owner's session lasts.
    const atMs = t.clock.ms + 60_000;
    t.clock.ms = atMs;
    // 2 cappuccinos at 3.20 (6.40) and 0.375 kg of beans at 24.90 (9.3375, half away from zero 9.34).
    const positions = [
      {
        PositionId: 1,
        ProductId: '1001',
        ProductName: 'Cappuccino',
        Unit: 0,
        Amount: 2,
        CurrentGrossPrice: 3.2,
      },
      {
        PositionId: 2,
        ProductId: '4001',
        ProductName: 'Beans',
        Unit: 1,
        Amount: 0.375,
        CurrentGrossPrice: 24.9,
      },
    ];
    const sent = { 'total-none': undefined, 'total-open': undefined, 'total-wrong': 16 } as const;
    for (const [basketId, total] of Object.entries(sent)) {
      const up = await pos('POST', `/baskets/${basketId}`, {
        body: {
          Timestamp: new Date(atMs).toISOString().replace('Z', '+00:00'),
          HasDiscounts: false,
          CurrencyISO: 'EUR',
          BillNumber: basketId,
          ...(total === undefined ? {} : { TotalValue: total }),
          Positions: positions,
        },
      });
      expect(up.statusCode, up.body).toBe(200);
      if (basketId !== 'total-open')
        expect((await pos('POST', `/baskets/${basketId}/grant`, { sign: basketId })).statusCode).toBe(200);
    }
    const found = async (basketId: string) =>
      (await list(`number=${basketId}`)).data[0] as Listing & Record<string, unknown>;
    expect(await found('total-none')).toMatchObject({
      totalValueMinor: null,
      positionsTotalMinor: 1574,
      state: 'granted',
    });
    expect(await found('total-open')).toMatchObject({
      totalValueMinor: null,
      positionsTotalMinor: 1574,
      state: 'open',
    });
    expect(await found('total-wrong')).toMatchObject({ totalValueMinor: 1600, positionsTotalMinor: 1574 });
    const page = async (path: string) => {
      const res = await t.app.inject({ method: 'GET', url: path, headers: { cookie: owner.cookie } });
      expect(res.statusCode).toBe(200);
      return res.body;
    };
    const rowOf = async (bill: string) => {
      const listed = await page(`/portal/baskets?number=${bill}`);
      return listed.slice(listed.indexOf('<tbody>'), listed.indexOf('</tbody>'));
    };
    expect(await rowOf('total-none')).toContain('€15.74');
    expect(await rowOf('total-none')).not.toContain('Till sent');
    expect(await rowOf('total-open')).toContain('€15.74');
    expect(await rowOf('total-wrong')).toMatch(/€15\.74[\s\S]*≠ Till sent €16\.00/);
    const detail = await page(`/portal/baskets/${units.get('0') ?? ''}/total-wrong`);
    expect(detail).toMatch(/id="basket-total">€15\.74[\s\S]*≠ Till sent €16\.00/);
  });

  it("the baskets page's days are the merchant's days: a bill at half past midnight belongs to the day it shows", async () => {
    // 14 Nov 2026 in Berlin runs from 13 Nov 23:00 to 14 Nov 23:00 UTC: a bar's bills after midnight.
    const rnd = random(11);
    const early = await sell(0, Date.parse('2026-11-13T23:30:00Z'), rnd); // 14 Nov, 00:30
    const late = await sell(0, Date.parse('2026-11-14T22:30:00Z'), rnd); // 14 Nov, 23:30
    const next = await sell(0, Date.parse('2026-11-14T23:30:00Z'), rnd); // 15 Nov, 00:30
    // Signed in anew on the morning after (the clock moved with the bills).
    t.clock.ms = Date.parse('2026-11-15T08:00:00Z');
    const morning = await portalSession(t, `owner-${kind}@baskets.test`, PASSWORD);
    const shown = async (query: string) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/portal/baskets?${query}`,
        headers: { cookie: morning.cookie },
      });
      expect(res.statusCode).toBe(200);
      // Each row links its basket (from its bill number and its basket id): once per basket.
      return [
        ...new Set([...res.body.matchAll(/href="\/portal\/baskets\/[^/"]+\/([^"]+)"/g)].map((x) => x[1])),
      ];
    };
    expect(await shown('from=2026-11-14&to=2026-11-14')).toEqual([late.basketId, early.basketId]);
    expect(await shown('from=2026-11-15&to=2026-11-15')).toEqual([next.basketId]);
    expect(await shown('from=2026-11-13&to=2026-11-13')).not.toContain(early.basketId);
    // The page shows each bill at its local time, on the day filtered.
    const listed = await t.app.inject({
      method: 'GET',
      url: '/portal/baskets?from=2026-11-14&to=2026-11-14',
      headers: { cookie: morning.cookie },
    });
    expect(listed.body).toContain('14 Nov 2026, 00:30');
    expect(listed.body).toContain('14 Nov 2026, 23:30');
  });
});
