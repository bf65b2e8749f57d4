import { createHash, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { openDatabase } from '../src/store/db.js';
import { admin } from './lib/setup.js';
import {
  type DatabaseTarget,
  type Kind,
  type RunningServer,
  freshDatabase,
  startProcess,
} from './lib/server.js';

/**
 * The portal's pages a café owner opens, over a year of trade: one merchant, 3 outlets with 2 tills
 * each, 100,000 granted baskets with positions (café articles, quantities, rewards of campaigns and
 * of a loyalty scheme on some, TotalValue sent by most tills and wrong on a few, a card on a third)
 * plus 2,000 open baskets and about 1,000 returns, through the real HTTP routes of the compiled
 * service on each database.
 *
 * The trade is seeded in two steps: 60 baskets are uploaded, granted and some returned through the
 * POS interface (so that every stored column is what the service writes), then each of them is
 * copied in bulk (INSERT ... SELECT in chunks of 10,000) to days and hours spread over the year,
 * with its own basket id, bill number, time and card; its campaign usages, points movements and
 * returns are copied with it.
 */

const GRANTED = Number(process.env.BENCH_PORTAL_BASKETS ?? 100_000);
const OPEN = Math.round(GRANTED / 50);
const CARDS = 400;
const TEMPLATES = 60;
const CHUNK = 10_000;
const ROUNDS = Number(process.env.BENCH_PORTAL_ROUNDS ?? 11);
export const ROUNDS_TEXT = String(ROUNDS);
const TARGET_MS = 500;
const TZ = 'Europe/Berlin';
const MERCHANT = 'bench-cafe';
const OWNER = { email: 'owner@bench-cafe.example', password: 'bench-password-1' };

const MENU = [
  { plu: '1001', name: 'Cappuccino', price: 3.2, kg: false },
  { plu: '1002', name: 'Latte macchiato', price: 3.6, kg: false },
  { plu: '1003', name: 'Espresso', price: 2.1, kg: false },
  { plu: '1004', name: 'Filter coffee', price: 2.6, kg: false },
  { plu: '1005', name: 'Tea', price: 2.7, kg: false },
  { plu: '2001', name: 'Croissant', price: 2.8, kg: false },
  { plu: '2002', name: 'Pain au chocolat', price: 3.1, kg: false },
  { plu: '3001', name: 'Cheesecake', price: 4.5, kg: false },
  { plu: '3002', name: 'Brownie', price: 3.3, kg: false },
  { plu: '4001', name: 'Bagel', price: 5.9, kg: false },
  { plu: '5001', name: 'Orange juice', price: 3.9, kg: false },
  { plu: '6001', name: 'Coffee beans', price: 24.9, kg: true },
] as const;

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

interface Till {
  trackingUnitId: string;
  checksumSecret: string;
  outletId: number;
}

async function http(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? null : (JSON.parse(text) as unknown);
}

/** The merchant, its outlets and tills, campaigns, a loyalty scheme, cards, a portal owner, and the 60 model baskets. */
async function setUp(baseUrl: string): Promise<{ campaignId: number }> {
  const { devKey } = (await admin(baseUrl, 'POST', '/devKeys', { name: 'bench' })) as { devKey: string };
  await admin(baseUrl, 'POST', '/merchants', {
    serviceUserName: MERCHANT,
    displayName: 'Bench café',
    currency: 'EUR',
    timeZone: TZ,
  });
  await admin(baseUrl, 'POST', `/merchants/${MERCHANT}/portalUsers`, { ...OWNER, role: 'owner' });
  const { brandId } = (await admin(baseUrl, 'POST', `/merchants/${MERCHANT}/brands`, {
    name: 'Bench café',
  })) as { brandId: number };
  const tills: Till[] = [];
  for (const outlet of ['Altstadt', 'Bahnhof', 'Campus']) {
    const o = (await http(
      baseUrl,
      'POST',
      `/api/pos/v3/merchants/${MERCHANT}/outlets?brandId=${brandId}`,
      { Name: outlet },
      { devkey: devKey },
    )) as { Id: number };
    for (const n of [1, 2]) {
      const unit = (await http(
        baseUrl,
        'GET',
        `/api/pos/v3/trackingUnits?serviceUserName=${MERCHANT}&outletId=${o.Id}&instanceName=${encodeURIComponent(`${outlet} ${n}`)}`,
        undefined,
        { devkey: devKey },
      )) as { trackingUnitId: string; checksumSecret: string };
      await admin(baseUrl, 'POST', `/trackingUnits/${unit.trackingUnitId}/activate`);
      tills.push({ ...unit, outletId: o.Id });
    }
  }
  const campaigns = [
    { name: 'Cappuccino 10 % off', type: 'product', discount: { percent: 10 }, products: [{ plu: '1001' }] },
    {
      name: 'Breakfast: coffee and croissant',
      type: 'combination',
      discount: { amount: 1 },
      combination: [
        { plu: '1004', quantity: 1 },
        { plu: '2001', quantity: 1 },
      ],
    },
    {
      name: 'Three brownies for two',
      type: 'quantity',
      buy: 2,
      get: 1,
      discount: { percent: 100 },
      products: [{ plu: '3002' }],
    },
  ];
  let campaignId = 0;
  for (const c of campaigns) {
    const created = (await admin(baseUrl, 'POST', `/merchants/${MERCHANT}/campaigns`, c)) as { id: number };
    campaignId ||= created.id;
  }
  await admin(baseUrl, 'POST', `/merchants/${MERCHANT}/loyaltySchemes`, {
    name: 'Coffee points',
    earn: [{ per: 'amount', amount: 1, points: 1 }],
    pointsExpireAfterDays: 365,
    reward: { threshold: 100, type: 'bill', discount: { amount: 5 } },
  });
  const first = tills[0];
  if (!first) throw new Error('no till');
  for (let c = 0; c < CARDS; c += 1) {
    await http(baseUrl, 'POST', `/api/pos/v3/tokens/card-${c}?tokentype=0`, undefined, {
      devkey: devKey,
      trackingunitid: first.trackingUnitId,
    });
  }
  // The model baskets: 1 to 4 positions, amounts 1 to 3 (beans by weight), TotalValue left out on a
  // fifth and wrong on a few, a card on a third, granted with the rewards redeemed at the till or not.
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  for (let i = 0; i < TEMPLATES; i += 1) {
    const till = tills[i % tills.length] ?? first;
    const pos = { devkey: devKey, trackingunitid: till.trackingUnitId };
    const basketId = `tpl-${String(i).padStart(2, '0')}`;
    const positions = Array.from({ length: 1 + (i % 4) }, (_, p) => {
      const item = MENU[Math.floor(rnd() * MENU.length)] ?? MENU[0];
      return {
        PositionId: p + 1,
        ProductId: item.plu,
        ProductName: item.name,
        Unit: item.kg ? 1 : 0,
        Amount: item.kg ? 0.25 * (1 + Math.floor(rnd() * 2)) : 1 + Math.floor(rnd() * 3),
        CurrentGrossPrice: item.price,
        RegularGrossPrice: item.price,
        VatInPercent: 19,
      };
    });
    const cents = positions.reduce(
      (s, p) => s + Math.round(Math.round(p.CurrentGrossPrice * 100) * p.Amount),
      0,
    );
    const total = i % 5 === 0 ? {} : { TotalValue: (cents + (i % 17 === 3 ? 50 : 0)) / 100 };
    const card = i % 3 === 0 ? `?consumerIdentToken=card-${i % 8}` : '';
    await http(
      baseUrl,
      'POST',
      `/api/pos/v3/baskets/${basketId}${card}`,
      {
        Timestamp: new Date().toISOString().replace('Z', '+00:00'),
        HasDiscounts: false,
        CurrencyISO: 'EUR',
        BillNumber: `T-${i}`,
        ...total,
        Positions: positions,
      },
      pos,
    );
    await http(
      baseUrl,
      'POST',
      `/api/pos/v3/baskets/${basketId}/grant?redeemedInPos=${i % 7 !== 0}`,
      undefined,
      { ...pos, securitytoken: md5(`${basketId}qPnsS14${till.checksumSecret}`) },
    );
    if (i % 10 === 4) {
      const returnId = `ret-${basketId}`;
      const back =
        i % 20 === 4
          ? positions.map((p) => ({ PositionId: p.PositionId, Amount: p.Amount }))
          : [{ PositionId: 1, Amount: positions[0]?.Unit === 1 ? positions[0].Amount : 1 }];
      await http(
        baseUrl,
        'POST',
        `/api/pos/v3/baskets/${basketId}/return`,
        { ReturnId: returnId, Positions: back },
        { ...pos, securitytoken: md5(`${basketId}${returnId}qPnsS14${till.checksumSecret}`) },
      );
    }
  }
  return { campaignId };
}

type Db = Awaited<ReturnType<typeof openDatabase>>['db'];

/**
 * Copies of the model baskets numbered from..to: basket n is a copy of model n mod 60 on its till,
 * on the day (N - n) × 365 / N days before today, between 07:00 and 19:00, bill number
 * R<outlet>-<n>, its card one of the 400 (by n) when the model had one. Granted unless `open`.
 */
async function copyBaskets(
  db: Db,
  merchantId: number,
  from: number,
  to: number,
  open: boolean,
): Promise<void> {
  const prefix = open ? 'open-' : 'y-';
  // Which model each copy is of, its id, time and card, in a table of its own so that the copies
  // below are planned with its statistics.
  await sql`TRUNCATE bench_copies`.execute(db);
  await sql`
    INSERT INTO bench_copies (n, model, tracking_unit_id, basket_id, ts, token)
    SELECT g.n, t.basket_id, t.tracking_unit_id, ${prefix} || g.n,
           LEAST(now() - interval '1 minute',
                 (date_trunc('day', now() AT TIME ZONE ${TZ}) AT TIME ZONE ${TZ})
                 - ((${GRANTED}::bigint - g.n) * 365 / ${GRANTED}) * interval '1 day'
                 + (25200 + (g.n::bigint * 7919) % 43200) * interval '1 second'),
           CASE WHEN t.consumer_token IS NULL THEN NULL ELSE 'card-' || (g.n % ${CARDS}) END
      FROM generate_series(${from}::int, ${to}::int) AS g(n)
      JOIN (SELECT b.basket_id, b.tracking_unit_id, b.consumer_token,
                   (row_number() OVER (ORDER BY b.basket_id) - 1)::int AS k
              FROM baskets b WHERE b.merchant_id = ${merchantId} AND b.basket_id LIKE 'tpl-%') t
        ON t.k = g.n % ${TEMPLATES}`.execute(db);
  await sql`ANALYZE bench_copies`.execute(db);
  await sql`
    INSERT INTO baskets (merchant_id, tracking_unit_id, basket_id, outlet_id, timestamp_utc,
                         timestamp_offset_minutes, currency, total_value_minor, consumer_token,
                         body, bill_number, result, uploaded_at, granted_at, redeemed_in_pos, grant_result)
    SELECT t.merchant_id, c.tracking_unit_id, c.basket_id, t.outlet_id, c.ts,
           t.timestamp_offset_minutes, t.currency, t.total_value_minor, c.token,
           jsonb_set(t.body::jsonb, '{BillNumber}', to_jsonb(b.bill_number))::json, b.bill_number,
           t.result, c.ts,
           ${open ? sql`NULL` : sql`c.ts`}, ${open ? sql`NULL` : sql`t.redeemed_in_pos`},
           ${open ? sql`NULL` : sql`t.grant_result`}
      FROM bench_copies c
      JOIN baskets t ON t.tracking_unit_id = c.tracking_unit_id AND t.basket_id = c.model
      CROSS JOIN LATERAL (SELECT 'R' || t.outlet_id || '-' || lpad(c.n::text, 6, '0') AS bill_number) b`.execute(
    db,
  );
  if (open) return;
  await sql`
    INSERT INTO campaign_usages (merchant_id, tracking_unit_id, basket_id, campaign_id, card_id, used, created_at)
    SELECT u.merchant_id, c.tracking_unit_id, c.basket_id, u.campaign_id, k.id, u.used, c.ts
      FROM bench_copies c
      JOIN campaign_usages u ON u.tracking_unit_id = c.tracking_unit_id AND u.basket_id = c.model
      LEFT JOIN cards k ON k.merchant_id = ${merchantId} AND k.token_id = c.token`.execute(db);
  await sql`
    INSERT INTO points_movements (merchant_id, scheme_id, card_id, kind, points, lot_id, tracking_unit_id,
                                  basket_id, created_at, expires_at)
    SELECT m.merchant_id, m.scheme_id, k.id, m.kind, m.points, m.lot_id, c.tracking_unit_id, c.basket_id,
           c.ts, m.expires_at
      FROM bench_copies c
      JOIN points_movements m ON m.tracking_unit_id = c.tracking_unit_id AND m.basket_id = c.model
                             AND m.return_id IS NULL AND m.kind IN ('earn', 'spend')
      JOIN cards k ON k.merchant_id = ${merchantId} AND k.token_id = c.token`.execute(db);
  // A tenth of the copies of a returned model are returned too, one to three days later.
  await sql`
    INSERT INTO basket_returns (merchant_id, tracking_unit_id, basket_id, return_id, body, response, created_at)
    SELECT r.merchant_id, c.tracking_unit_id, c.basket_id, r.return_id, r.body, r.response,
           LEAST(now(), c.ts + (1 + c.n % 3) * interval '1 day')
      FROM bench_copies c
      JOIN basket_returns r ON r.tracking_unit_id = c.tracking_unit_id AND r.basket_id = c.model
     WHERE (c.n / ${TEMPLATES}) % 10 = 0`.execute(db);
}

async function seed(target: DatabaseTarget, kind: Kind): Promise<void> {
  const database = await openDatabase({
    databaseUrl: target.url,
    dataDir: target.url ? null : (target.env.DATA_DIR ?? null),
    poolSize: 2,
  });
  try {
    const db = database.db;
    const m = await sql<{
      id: number;
    }>`SELECT id FROM merchants WHERE service_user_name = ${MERCHANT}`.execute(db);
    const merchantId = Number(m.rows[0]?.id);
    const started = performance.now();
    await sql`CREATE TABLE bench_copies (n int, model text, tracking_unit_id text, basket_id text,
                                         ts timestamptz, token text)`.execute(db);
    for (let from = 1; from <= GRANTED; from += CHUNK) {
      const to = Math.min(GRANTED, from + CHUNK - 1);
      await copyBaskets(db, merchantId, from, to, false);
      console.log(
        `portal-pages on ${kind}: seeded ${to.toLocaleString('en')} of ${GRANTED.toLocaleString('en')} granted baskets (${((performance.now() - started) / 1000).toFixed(0)} s)`,
      );
    }
    await copyBaskets(db, merchantId, 1, OPEN, true);
    await sql`DROP TABLE bench_copies`.execute(db);
    await sql`VACUUM ANALYZE`.execute(db);
    console.log(
      `portal-pages on ${kind}: seeded ${OPEN} open baskets, vacuumed and analysed (${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
  } finally {
    await database.close();
  }
}

export interface PageFigure {
  page: string;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface PortalPagesRun {
  kind: Kind;
  seedSeconds: number;
  baskets: number;
  returns: number;
  rows: PageFigure[];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function dayBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

async function measure(server: RunningServer, kind: Kind, campaignId: number) {
  const signIn = await fetch(`${server.baseUrl}/portal/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(OWNER),
  });
  if (!signIn.ok) throw new Error(`sign-in: ${signIn.status} ${await signIn.text()}`);
  const cookie = String(signIn.headers.get('set-cookie')).split(';')[0] ?? '';
  const { csrfToken } = (await signIn.json()) as { csrfToken: string };
  const get = async (path: string): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${server.baseUrl}${path}`, { headers: { cookie } });
    return { status: res.status, text: await res.text() };
  };
  const json = async <T>(path: string): Promise<T> => {
    const r = await get(path);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
    return JSON.parse(r.text) as T;
  };
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(new Date());
  const year = `from=${dayBefore(today, 364)}&to=${today}`;
  const yearFigures = await json<{ totals: { baskets: number; returns: number; salesMinor: number } }>(
    `/portal/api/v1/dashboard?${year}`,
  );
  if (yearFigures.totals.baskets < GRANTED || yearFigures.totals.salesMinor <= 0)
    throw new Error(
      `the year shows ${yearFigures.totals.baskets} baskets, ${yearFigures.totals.salesMinor} sales`,
    );
  // A basket of about four months ago, with a card (its model had one).
  const picked = `y-${Math.round((GRANTED * 0.66) / TEMPLATES) * TEMPLATES + 3}`;
  const found = await json<{
    data: { trackingUnitId: string; basketId: string; billNumber: string; outletId: number }[];
  }>(`/portal/api/v1/baskets?number=${picked}&limit=1`);
  const basket = found.data[0];
  if (!basket?.billNumber) throw new Error(`basket ${picked} not found`);
  const day = dayBefore(today, 100);
  // Another regular enrolled at the counter with her card: its points move to her.
  const enrolled = await fetch(`${server.baseUrl}/portal/api/v1/profiles`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': csrfToken },
    body: JSON.stringify({ requestId: randomUUID(), fullName: 'Lena Vogt', tokenId: 'card-8' }),
  });
  if (enrolled.status !== 201) throw new Error(`enrolment: ${enrolled.status} ${await enrolled.text()}`);
  const customer = ((await enrolled.json()) as { id: number }).id;
  const pages: { page: string; path: string; expect: string }[] = [
    {
      page: 'baseline: the signed-in user (GET /portal/api/v1/me)',
      path: '/portal/api/v1/me',
      expect: OWNER.email,
    },
    { page: 'dashboard, Today', path: '/portal/dashboard?preset=today', expect: 'chart' },
    { page: 'dashboard, Yesterday', path: '/portal/dashboard?preset=yesterday', expect: 'chart' },
    { page: 'dashboard, 7 days', path: '/portal/dashboard?preset=7d', expect: 'chart' },
    { page: 'dashboard, 30 days', path: '/portal/dashboard?preset=30d', expect: 'chart' },
    { page: 'dashboard, 365 days', path: `/portal/dashboard?${year}`, expect: 'chart' },
    { page: 'dashboard CSV, 365 days', path: `/portal/api/v1/dashboard.csv?${year}`, expect: 'day,outletId' },
    {
      page: 'basket search by bill number',
      path: `/portal/baskets?number=${encodeURIComponent(basket.billNumber)}`,
      expect: basket.billNumber,
    },
    {
      page: 'basket list, one outlet, one day',
      path: `/portal/baskets?outletId=${basket.outletId}&from=${day}&to=${day}`,
      expect: 'basket-list',
    },
    {
      page: 'basket page',
      path: `/portal/baskets/${encodeURIComponent(basket.trackingUnitId)}/${encodeURIComponent(basket.basketId)}`,
      expect: basket.billNumber,
    },
    {
      page: 'card page (a regular, about 80 visits)',
      path: '/portal/cards?tokenId=card-7',
      expect: 'card-7',
    },
    {
      page: 'customer page (a regular with her card, about 80 visits)',
      path: `/portal/profiles/${customer}`,
      expect: 'points-history',
    },
    { page: 'campaign page', path: `/portal/campaigns/${campaignId}`, expect: 'Cappuccino' },
  ];
  const times = new Map<string, number[]>(pages.map((p) => [p.page, []]));
  for (const p of pages) {
    const r = await get(p.path); // warm-up, and the page is what it should be
    if (r.status !== 200 || !r.text.includes(p.expect))
      throw new Error(`${p.path}: ${r.status}, "${p.expect}" not in ${r.text.slice(0, 300)}`);
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const p of pages) {
      const started = performance.now();
      const r = await get(p.path);
      times.get(p.page)?.push(performance.now() - started);
      if (r.status !== 200) throw new Error(`${p.path}: ${r.status}`);
    }
    console.log(`portal-pages on ${kind}: round ${round + 1} of ${ROUNDS}`);
  }
  return {
    baskets: yearFigures.totals.baskets,
    returns: yearFigures.totals.returns,
    rows: pages.map((p) => {
      const sorted = [...(times.get(p.page) ?? [])].sort((a, b) => a - b);
      return {
        page: p.page,
        p50Ms: Math.round(percentile(sorted, 50)),
        p95Ms: Math.round(percentile(sorted, 95)),
        maxMs: Math.round(sorted[sorted.length - 1] ?? 0),
      };
    }),
  };
}

/** The compiled service; a first start on a new embedded database migrates it, which a busy machine makes slow. */
const startService = (env: Record<string, string>) =>
  startProcess(['dist/server.js'], env, { readyTimeoutMs: 240_000 });

export async function runPortalPagesBench(kinds: Kind[]): Promise<PortalPagesRun[]> {
  const runs: PortalPagesRun[] = [];
  for (const kind of kinds) {
    const target = await freshDatabase(kind, 'portalpages');
    try {
      let server = await startService(target.env);
      console.log(`portal-pages on ${kind}: setting up the café and its 60 model baskets`);
      const { campaignId } = await setUp(server.baseUrl);
      await server.stop();
      const started = performance.now();
      await seed(target, kind);
      const seedSeconds = Math.round((performance.now() - started) / 1000);
      server = await startService(target.env);
      try {
        const m = await measure(server, kind, campaignId);
        runs.push({ kind, seedSeconds, ...m });
      } finally {
        await server.stop();
      }
    } finally {
      // BENCH_PORTAL_KEEP=1 keeps the seeded database to look at the plans (EXPLAIN ANALYZE).
      if (process.env.BENCH_PORTAL_KEEP === '1')
        console.log(`portal-pages on ${kind}: kept ${target.name ?? target.env.DATA_DIR}`);
      else await target.drop();
    }
  }
  return runs;
}

export function portalPagesTable(runs: PortalPagesRun[]): string {
  const lines = [
    '| database | page | p50 ms | p95 ms | max ms | p50 vs baseline | under 500 ms (p95) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of runs) {
    const base = r.rows[0]?.p50Ms || 1;
    for (const row of r.rows) {
      lines.push(
        `| ${r.kind} | ${row.page} | ${row.p50Ms} | ${row.p95Ms} | ${row.maxMs} | ${(row.p50Ms / base).toFixed(1)} | ${row.p95Ms < TARGET_MS ? 'yes' : `no (by ${row.p95Ms - TARGET_MS} ms)`} |`,
      );
    }
  }
  return lines.join('\n');
}

export const machineLoad = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

if (import.meta.url === `file://${process.argv[1]}`) {
  const kinds = (process.env.BENCH_DATABASES ?? 'pglite,postgres').split(',') as Kind[];
  const runs = await runPortalPagesBench(kinds);
  console.log(portalPagesTable(runs));
  for (const r of runs)
    console.log(`${r.kind}: ${r.baskets} baskets, ${r.returns} returns, seeded in ${r.seedSeconds} s`);
}
