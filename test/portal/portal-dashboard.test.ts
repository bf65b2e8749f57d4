import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { type Returned, type Sold, type Till, addTill, local, trade } from './dashboard-trade.js';
import { type PortalSession, portalCall, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
/** 2026-11-02 00:00 in Berlin: two weeks of trade from here. */
const START = Date.parse('2026-11-01T23:00:00Z');

interface Figures {
  baskets: number;
  openBaskets: number;
  salesMinor: number;
  rewardsMinor: number;
  returns: number;
  returnsMinor: number;
  revenueMinor: number;
  pointsEarned: number;
  pointsRedeemed: number;
  withTotalValue: number;
  totalValueDiffers: number;
}
type Day = Figures & { day: string; outletId: number | null };
interface Answer {
  preset: string | null;
  from: string;
  to: string;
  totals: Figures & {
    averageTicketMinor: number;
    totalValueDiffersTillMinor: number;
    totalValueDiffersSalesMinor: number;
  };
  previous: { from: string; to: string; until: string | null; totals: Figures };
  days: Day[];
  hours: { hour: number; baskets: number; revenueMinor: number }[];
  topArticlesByRevenue: { plu: string | null; name: string | null; quantity: string; salesMinor: number }[];
  topArticlesByCount: { plu: string | null; quantity: string; salesMinor: number }[];
}

const empty = (): Figures => ({
  baskets: 0,
  openBaskets: 0,
  salesMinor: 0,
  rewardsMinor: 0,
  returns: 0,
  returnsMinor: 0,
  revenueMinor: 0,
  pointsEarned: 0,
  pointsRedeemed: 0,
  withTotalValue: 0,
  totalValueDiffers: 0,
});

/** The figures of the trade, summed here over the baskets and returns an instant filter keeps. */
function expected(sold: Sold[], returned: Returned[], keep: (ms: number, outletId: number) => boolean) {
  const days = new Map<string, Day>();
  const at = (ms: number, outletId: number) => {
    const key = `${local(ms).day}/${outletId}`;
    let d = days.get(key);
    if (!d) {
      d = { day: local(ms).day, outletId, ...empty() };
      days.set(key, d);
    }
    return d;
  };
  for (const s of sold.filter((x) => keep(x.atMs, x.outletId))) {
    const d = at(s.atMs, s.outletId);
    if (!s.granted) {
      d.openBaskets += 1;
      continue;
    }
    d.baskets += 1;
    d.salesMinor += s.grossCents;
    d.rewardsMinor += s.rewardsCents;
    d.pointsEarned += s.earned;
    d.pointsRedeemed += s.spent;
    if (s.totalValueCents !== null) d.withTotalValue += 1;
    if (s.totalValueCents !== null && s.totalValueCents !== s.grossCents) d.totalValueDiffers += 1;
  }
  for (const r of returned.filter((x) => keep(x.atMs, x.outletId))) {
    const d = at(r.atMs, r.outletId);
    d.returns += 1;
    d.returnsMinor += r.grossCents - r.refundedCents;
  }
  const list = [...days.values()]
    .map((d) => ({ ...d, revenueMinor: d.salesMinor - d.rewardsMinor - d.returnsMinor }))
    .sort((a, b) => a.day.localeCompare(b.day) || (a.outletId ?? 0) - (b.outletId ?? 0));
  const totals = empty();
  for (const d of list) for (const k of Object.keys(totals) as (keyof Figures)[]) totals[k] += d[k];
  return { days: list, totals };
}

describe.each(databases)('dashboard figures reconcile with the trade (%s)', (kind) => {
  let t: TestApp;
  let owner: PortalSession;
  let tills: Till[];
  let sold: Sold[];
  let returned: Returned[];

  const get = async (query: string): Promise<Answer> => {
    const res = await portalCall(t, owner, 'GET', `/dashboard?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Answer;
  };

  beforeAll(async () => {
    t = await startApp(kind);
    const term = await setupTerminal(t);
    const u = encodeURIComponent(term.serviceUserName);
    for (const c of [
      { name: 'Cappuccino -20 %', type: 'product', products: [{ plu: '1001' }], discount: { percent: 20 } },
      {
        name: 'Third croissant free',
        type: 'quantity',
        products: [{ plu: '2001' }],
        buy: 2,
        get: 1,
        discount: { percent: 100 },
      },
      {
        name: 'Coffee and cake',
        type: 'combination',
        combination: [
          { plu: '1001', quantity: 1 },
          { plu: '3001', quantity: 1 },
        ],
        discount: { price: 6.5 },
      },
      { name: '1.00 off from 15.00', type: 'bill', minTotal: 15, discount: { amount: 1 } },
    ]) {
      const res = await t.admin('POST', `/merchants/${u}/campaigns`, c);
      expect(res.statusCode, res.body).toBe(201);
    }
    const scheme = await t.admin('POST', `/merchants/${u}/loyaltySchemes`, {
      name: 'Coffee card',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
      reward: { threshold: 20, type: 'bill', discount: { amount: 2 } },
    });
    expect(scheme.statusCode, scheme.body).toBe(201);
    const cards = ['card-a', 'card-b', 'card-c'];
    for (const c of cards) expect((await tokens(term).register(c)).statusCode).toBe(200);
    await t.admin('POST', `/merchants/${u}/portalUsers`, {
      email: `owner-${kind}@dash.test`,
      password: PASSWORD,
    });
    owner = await portalSession(t, `owner-${kind}@dash.test`, PASSWORD);
    tills = [
      { outletId: term.outletId, pos: term.pos },
      await addTill(t, term, 'Station'),
      await addTill(t, term, 'Harbour'),
    ];
    ({ sold, returned } = await trade(t, tills, cards, START, 14));
    // The session was made before the trade moved the clock on: sign in again.
    owner = await portalSession(t, `owner-${kind}@dash.test`, PASSWORD);
  }, 300_000);
  afterAll(() => t?.close());

  it('the trade has what the figures must handle: TotalValue missing, wrong, open baskets, returns, rewards, points', () => {
    const granted = sold.filter((s) => s.granted);
    expect(granted.some((s) => s.totalValueCents === null)).toBe(true);
    expect(granted.some((s) => s.totalValueCents !== null && s.totalValueCents !== s.grossCents)).toBe(true);
    expect(sold.some((s) => !s.granted)).toBe(true);
    expect(returned.length).toBeGreaterThan(3);
    expect(granted.filter((s) => s.rewardsCents > 0).length).toBeGreaterThan(10);
    expect(granted.some((s) => s.spent > 0)).toBe(true);
  });

  it("revenue from the granted baskets' positions, less rewards and returns; open baskets apart; every day and outlet and the totals", async () => {
    const d = await get('from=2026-11-01&to=2026-11-20');
    const want = expected(sold, returned, () => true);
    expect(d.days).toEqual(want.days);
    const { averageTicketMinor, totalValueDiffersTillMinor, totalValueDiffersSalesMinor, ...figures } =
      d.totals;
    expect(figures).toEqual(want.totals);
    const granted = sold.filter((s) => s.granted);
    const kept = granted.reduce((s, x) => s + x.grossCents - x.rewardsCents, 0);
    expect(averageTicketMinor).toBe(Math.round(kept / granted.length));
    const differs = granted.filter((s) => s.totalValueCents !== null && s.totalValueCents !== s.grossCents);
    expect(totalValueDiffersTillMinor).toBe(differs.reduce((s, x) => s + (x.totalValueCents ?? 0), 0));
    expect(totalValueDiffersSalesMinor).toBe(differs.reduce((s, x) => s + x.grossCents, 0));
  });

  it('the CSV has the same figures, line by line, in major units', async () => {
    const res = await portalCall(t, owner, 'GET', '/dashboard.csv?from=2026-11-01&to=2026-11-20');
    expect(res.statusCode).toBe(200);
    const [header, ...lines] = res.body.trim().split('\r\n');
    expect(header).toBe(
      'day,outletId,baskets,openBaskets,sales,rewards,returns,returnsValue,revenue,pointsEarned,pointsRedeemed,withTotalValue,totalValueDiffers,currency',
    );
    const money = (c: number) =>
      `${c < 0 ? '-' : ''}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;
    const want = expected(sold, returned, () => true).days.map((x) =>
      [
        x.day,
        x.outletId,
        x.baskets,
        x.openBaskets,
        money(x.salesMinor),
        money(x.rewardsMinor),
        x.returns,
        money(x.returnsMinor),
        money(x.revenueMinor),
        x.pointsEarned,
        x.pointsRedeemed,
        x.withTotalValue,
        x.totalValueDiffers,
        'EUR',
      ].join(','),
    );
    expect(lines).toEqual(want);
  });

  it('baskets by hour of day and the top articles by sales and by quantity', async () => {
    const d = await get('from=2026-11-01&to=2026-11-20');
    const granted = sold.filter((s) => s.granted);
    const hours = Array.from({ length: 24 }, (_, hour) => ({ hour, baskets: 0, revenueMinor: 0 }));
    for (const s of granted) {
      const h = hours[local(s.atMs).hour];
      if (!h) throw new Error('hour');
      h.baskets += 1;
      h.revenueMinor += s.grossCents - s.rewardsCents;
    }
    expect(d.hours).toEqual(hours);
    const articles = new Map<string | null, { thousandths: number; salesMinor: number }>();
    for (const p of granted.flatMap((s) => s.positions)) {
      const a = articles.get(p.plu) ?? { thousandths: 0, salesMinor: 0 };
      a.thousandths += p.thousandths;
      a.salesMinor += p.lineCents;
      articles.set(p.plu, a);
    }
    const quantity = (th: number) => String(th / 1000);
    const list = [...articles.entries()].map(([plu, a]) => ({
      plu,
      quantity: quantity(a.thousandths),
      salesMinor: a.salesMinor,
    }));
    expect(d.topArticlesByRevenue.map(({ name: _n, ...a }) => a)).toEqual(
      [...list].sort((a, b) => b.salesMinor - a.salesMinor),
    );
    expect(d.topArticlesByCount).toEqual(
      expect.arrayContaining([...list].map((a) => expect.objectContaining(a))),
    );
    expect(d.topArticlesByCount.map((a) => Number(a.quantity))).toEqual(
      [...list].map((a) => Number(a.quantity)).sort((x, y) => y - x),
    );
    expect(d.topArticlesByRevenue.find((a) => a.plu === '4001')?.name).toBe('Coffee beans');
  });

  it("presets Today, Yesterday, 7 and 30 days in the merchant's time zone, each with the period before it", async () => {
    const now = t.clock.ms;
    const today = local(now).day;
    const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
    const shift = (day: string, n: number) =>
      new Date(dayMs(day) + n * 86_400_000).toISOString().slice(0, 10);
    const msOfDay = (ms: number) => {
      const l = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      })
        .format(new Date(ms))
        .split(':')
        .map(Number);
      return ((l[0] ?? 0) * 3600 + (l[1] ?? 0) * 60 + (l[2] ?? 0)) * 1000 + (ms % 1000);
    };
    for (const [preset, back, end] of [
      ['today', 0, 0],
      ['yesterday', 1, 1],
      ['7d', 6, 0],
      ['30d', 29, 0],
    ] as const) {
      const d = await get(`preset=${preset}`);
      const from = shift(today, -back);
      const to = shift(today, -end);
      expect([d.preset, d.from, d.to]).toEqual([preset, from, to]);
      const within = (a: string, b: string) => (ms: number) => local(ms).day >= a && local(ms).day <= b;
      const want = expected(sold, returned, within(from, to));
      const {
        averageTicketMinor: _a,
        totalValueDiffersTillMinor: _b,
        totalValueDiffersSalesMinor: _c,
        ...figures
      } = d.totals;
      expect(figures, preset).toEqual(want.totals);
      const n = back - end + 1;
      const [pFrom, pTo] = [shift(from, -n), shift(to, -n)];
      expect([d.previous.from, d.previous.to]).toEqual([pFrom, pTo]);
      const cut = end === 0;
      const before = expected(
        sold,
        returned,
        (ms) => within(pFrom, pTo)(ms) && (!cut || local(ms).day < pTo || msOfDay(ms) < msOfDay(now)),
      );
      const {
        averageTicketMinor: _d,
        totalValueDiffersTillMinor: _e,
        totalValueDiffersSalesMinor: _f,
        ...previous
      } = d.previous.totals as Answer['totals'];
      expect(previous, `${preset} before`).toEqual(before.totals);
      expect(d.previous.until === null).toBe(!cut);
    }
    // No day given: today.
    expect((await get('')).preset).toBe('today');
  });

  it("over 90 days the page shows weeks (Monday to Sunday), over 180 days months; each step's figures are the sums of its days", async () => {
    const mondays = new Set<string>();
    const days = new Map<number, string>();
    const dayOf = (ms: number) => {
      const day = days.get(ms) ?? local(ms).day;
      days.set(ms, day);
      return day;
    };
    for (const [from, to, step] of [
      ['2026-08-05', '2026-11-02', 'day'], // 90 days
      ['2026-08-06', '2026-11-20', 'week'], // 107 days, from a Thursday
      ['2025-12-03', '2026-11-20', 'month'], // 353 days
    ] as const) {
      const page = await t.app.inject({
        method: 'GET',
        url: `/portal/dashboard?from=${from}&to=${to}`,
        headers: { cookie: owner.cookie },
      });
      expect(page.statusCode).toBe(200);
      const block = /<script type="application\/json" id="dashboard-data">(.*?)<\/script>/s.exec(
        page.body,
      )?.[1];
      const data = JSON.parse(block ?? 'null') as {
        step: string;
        steps: {
          from: string;
          to: string;
          baskets: number;
          revenueMinor: number;
          rewardsMinor: number;
          pointsEarned: number;
          pointsRedeemed: number;
        }[];
      };
      expect(data.step).toBe(step);
      // The steps cover the period, each day once.
      expect(data.steps[0]?.from).toBe(from);
      expect(data.steps.at(-1)?.to).toBe(to);
      for (const [i, s] of data.steps.entries()) {
        const weekday = new Date(`${s.from}T00:00:00Z`).getUTCDay();
        const days = (Date.parse(`${s.to}T00:00:00Z`) - Date.parse(`${s.from}T00:00:00Z`)) / 86_400_000 + 1;
        if (step === 'day') expect(days).toBe(1);
        if (step === 'week' && i > 0)
          expect([weekday, days]).toEqual([1, i < data.steps.length - 1 ? 7 : days]);
        if (step === 'month' && i > 0) expect(s.from.slice(8)).toBe('01');
        if (i > 0)
          expect(Date.parse(`${s.from}T00:00:00Z`)).toBe(
            Date.parse(`${data.steps[i - 1]?.to}T00:00:00Z`) + 86_400_000,
          );
        const want = expected(sold, returned, (ms) => dayOf(ms) >= s.from && dayOf(ms) <= s.to).totals;
        expect(
          [s.baskets, s.revenueMinor, s.rewardsMinor, s.pointsEarned, s.pointsRedeemed],
          `${step} ${s.from}`,
        ).toEqual([
          want.baskets,
          want.revenueMinor,
          want.rewardsMinor,
          want.pointsEarned,
          want.pointsRedeemed,
        ]);
        if (step === 'week' && want.baskets > 0) mondays.add(s.from);
      }
      // The table: one line per step and outlet that had trade, the step named by its days.
      const table = page.body.slice(page.body.indexOf('id="dashboard-table"'));
      const rows = [
        ...table.slice(0, table.indexOf('</tbody>')).matchAll(/<tr>\s*<td[^>]*>([^<]*)<\/td>/g),
      ].map((m) => m[1]);
      const stepOf = (ms: number) => data.steps.find((s) => s.from <= dayOf(ms) && dayOf(ms) <= s.to)?.from;
      const traded = new Set(
        [...sold, ...returned].filter((x) => stepOf(x.atMs)).map((x) => `${stepOf(x.atMs)}/${x.outletId}`),
      );
      expect(rows.length).toBe(traded.size);
      const label = { day: '2 Nov 2026', week: '2 Nov 2026 – 8 Nov 2026', month: '1 Nov 2026 – 20 Nov 2026' };
      expect(rows).toContain(label[step]);
      const heading = {
        day: 'By day and outlet',
        week: 'By week (Monday to Sunday) and outlet',
        month: 'By month and outlet',
      };
      expect(page.body).toContain(heading[step]);
    }
    // The two weeks of trade are two steps, each of seven days.
    expect([...mondays].sort()).toEqual(['2026-11-02', '2026-11-09']);
  });

  it('one outlet: its own figures only', async () => {
    const outletId = tills[1]?.outletId ?? 0;
    const d = await get(`from=2026-11-01&to=2026-11-20&outletId=${outletId}`);
    const {
      averageTicketMinor: _a,
      totalValueDiffersTillMinor: _b,
      totalValueDiffersSalesMinor: _c,
      ...figures
    } = d.totals;
    expect(figures).toEqual(expected(sold, returned, (_ms, o) => o === outletId).totals);
  });

  it('the points tile signs the points earned and redeemed, and shows none as 0', async () => {
    const tile = async (query: string) => {
      const page = await t.app.inject({
        method: 'GET',
        url: `/portal/dashboard?${query}`,
        headers: { cookie: owner.cookie },
      });
      return /<div class="label">Points<\/div>\s*<div class="value">(.*?)<\/div>/s.exec(page.body)?.[1];
    };
    const signed = (n: number, sign: string) => (n === 0 ? '0' : `${sign}${n.toLocaleString('en-GB')}`);
    const { totals } = await get('from=2026-11-01&to=2026-11-20');
    expect(totals.pointsEarned).toBeGreaterThan(0);
    expect(await tile('from=2026-11-01&to=2026-11-20')).toBe(
      `${signed(totals.pointsEarned, '+')} / ${signed(totals.pointsRedeemed, '−')}`,
    );
    const none = await get('from=2026-01-05&to=2026-01-06');
    expect([none.totals.pointsEarned, none.totals.pointsRedeemed]).toEqual([0, 0]);
    expect(await tile('from=2026-01-05&to=2026-01-06')).toBe('0 / 0');
  });

  it("the page shows the revenue in the user's language and says where the till's total differs", async () => {
    const d = await get('from=2026-11-01&to=2026-11-20');
    const page = await t.app.inject({
      method: 'GET',
      url: '/portal/dashboard?from=2026-11-01&to=2026-11-20',
      headers: { cookie: owner.cookie },
    });
    const euros = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(
      d.totals.revenueMinor / 100,
    );
    expect(page.body).toContain(euros);
    expect(page.body).toContain('id="total-value-differs"');
    expect(page.body).toContain('id="total-value-missing"');
    const de = await t.app.inject({
      method: 'GET',
      url: '/portal/dashboard?from=2026-11-01&to=2026-11-20',
      headers: { cookie: owner.cookie, 'accept-language': 'de-DE' },
    });
    const euro = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(
      d.totals.revenueMinor / 100,
    );
    expect(de.body).toContain(euro);
    expect(de.body).toContain('02.11.2026');
    expect(de.body).not.toContain('2026-11-02<');
  });
});
