import { createHmac, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { HttpClient } from '../test/support/http-pos.js';
import {
  type CheckoutIdentity,
  coffeeOrder,
  fundedProfile,
  setupCheckoutHttp,
} from '../test/support/http-checkout.js';
import {
  BENCH_ADMIN_TOKEN,
  type CpuUse,
  type Kind,
  cpuCell,
  measuredCpu,
  type Teardown,
  serviceAndBaseline,
  withTeardown,
} from './lib/server.js';
import { recordFigures } from './lib/history.js';
import { afterRun, ledgerVerdict } from './lib/money-check.js';
import { type LoadRequest, type TalliedRun, tallyLoad } from './lib/tally-load.js';
import { type TurnRatios, combineTurns, turnRatios, turnsText } from './lib/turns.js';
import {
  NO_BATCHES,
  type WriteBatches,
  addBatches,
  batchesBetween,
  batchesText,
  writeBatches,
} from './lib/write-batches.js';

/**
 * Checkout orders paid from the balance (POST /api/v1/orders, signed, with Idempotency-Key) over
 * HTTP, on distinct funded profiles and on one hot profile, against the one-INSERT baseline (a
 * bare Fastify route that parses the same order body and does one INSERT) measured in the same
 * run on the same database, loaded in turns.
 */
const CONNECTIONS = 32;
const DURATION_SEC = Number(process.env.BENCH_DURATION_SEC ?? 10);
const ROUNDS = 5;
const PROFILES = 200;
/** The menu of the orders of several positions: P1 and 49 more articles. */
const MENU = Array.from({ length: 49 }, (_, i) => ({
  plu: `M${String(i + 1).padStart(2, '0')}`,
  priceMinor: 90 + ((i * 37) % 61) * 10,
  vat: i % 3 === 0 ? 7 : 19,
}));
const POSITIONS = 6;
/** What each of the distinct profiles is funded with. */
const FUNDED = 100_000_000;

/** An order of six different articles of the menu, one or two of each, seeded by `n`. */
function menuOrder(who: CheckoutIdentity, card: string, n: number): Record<string, unknown> {
  const chosen = new Set<number>();
  for (let k = 0; chosen.size < POSITIONS; k++) chosen.add((n * 7 + k * 13 + ((n * k) % 5)) % MENU.length);
  const positions = [...chosen].map((i, at) => ({
    positionId: at + 1,
    productPlu: MENU[i]?.plu,
    quantity: 1 + ((n + at) % 2),
  }));
  const totalGross = positions.reduce(
    (sum, p) => sum + (MENU.find((m) => m.plu === p.productPlu)?.priceMinor ?? 0) * p.quantity,
    0,
  );
  return { ...coffeeOrder(who, card, 1), positions, totalGross };
}

function signed(who: CheckoutIdentity, body: string): Record<string, string> {
  const key = randomUUID();
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', who.securitySecret)
    .update(`${timestamp}\n${key}\n`)
    .update(Buffer.from(body, 'utf8'))
    .digest('hex');
  return {
    authorization: `Token ${who.accessToken}`,
    'idempotency-key': key,
    timestamp,
    'security-token': signature,
  };
}

/** Requests a turn is expected to need at most per second (more are made while it runs). */
const PREPARED_PER_SEC = 8000;

/**
 * The requests of a turn, made before it starts: the load generator shares the two cores with the
 * service, and making a request (a new basketId and Idempotency-Key, the JSON body, the signature)
 * is the client's work, which should not take CPU from the service while it is measured. A turn
 * that needs more than were made makes the rest as it goes.
 */
function prepared(seconds: number, make: (n: number) => LoadRequest): (n: number) => LoadRequest {
  const list = Array.from({ length: seconds * PREPARED_PER_SEC }, (_, n) => make(n));
  return (n) => list[n] ?? make(n);
}

export interface OrdersRow {
  kind: Kind;
  baseline: TalliedRun;
  /** The baseline with the six positions' order body: the same body as the orders of that row. */
  menuBaseline: TalliedRun;
  distinct: TalliedRun;
  menu: TalliedRun;
  hot: TalliedRun;
  /** Orders a campaign limited per customer rewards: booked under the customer's lock. */
  limited: TalliedRun;
  /** Orders a campaign with a budget rewards: booked under the budget's lock. */
  budgeted: TalliedRun;
  /** CPU time over the measured turns: the server process, and the PostgreSQL backends. */
  cpu: {
    baseline: CpuUse;
    menuBaseline: CpuUse;
    distinct: CpuUse;
    menu: CpuUse;
    hot: CpuUse;
    limited: CpuUse;
    budgeted: CpuUse;
  };
  /** The order writer's batches in the one-position and the six-position turns (the service's /metrics). */
  batches: { distinct: WriteBatches; menu: WriteBatches };
  /** Each scenario's turns against the baseline's turn of the same round. */
  turns: {
    distinct: TurnRatios;
    menu: TurnRatios;
    /** The six positions' turns against the baseline of their own body's turn of the same round. */
    menuSameBody: TurnRatios;
    hot: TurnRatios;
    limited: TurnRatios;
    budgeted: TurnRatios;
  };
  /** After the run: the money the orders charged, what the balances lost, and the ledger's check. */
  money: { charged: number; moved: number; ledgerViolations: number };
  /**
   * The orders answered as placed and those left unanswered when a turn's time was up (warm-up
   * included), against the orders the database holds.
   */
  placed: { answered: number; unanswered: number; stored: number };
}

export async function runOrdersRows(kinds: Kind[]): Promise<OrdersRow[]> {
  const rows: OrdersRow[] = [];
  for (const kind of kinds) {
    rows.push(await withTeardown((made) => ordersRow(kind, made)));
  }
  return rows;
}

async function ordersRow(kind: Kind, made: Teardown): Promise<OrdersRow> {
  const { serviceDb, baselineDb, service, baseline } = await serviceAndBaseline(made, kind, 'orders', {
    service: { DATABASE_POOL_SIZE: '32' },
    baseline: { DATABASE_POOL_SIZE: '32' },
  });
  const client = new HttpClient(service.baseUrl, BENCH_ADMIN_TOKEN, 20);
  let measured: Omit<OrdersRow, 'kind' | 'money' | 'placed'>;
  let warm: TalliedRun[] = [];
  try {
    const who = await setupCheckoutHttp(client, `bench-orders-${Date.now()}`, MENU);
    const cards: string[] = [];
    for (let i = 0; i < PROFILES; i += 20) {
      cards.push(
        ...(await Promise.all(Array.from({ length: 20 }, () => fundedProfile(client, who, FUNDED)))),
      );
    }
    // Enough for a part of the run only, so that both outcomes (charged, insufficient) are measured.
    const hot = await fundedProfile(client, who, 50_000);
    // A shop of its own with a campaign on P1 (10 % off) and its funded profiles.
    const campaignShop = async (name: string, limits: Record<string, unknown>) => {
      const shop = await setupCheckoutHttp(client, `bench-orders-${name}-${Date.now()}`, MENU);
      const campaign = await client.admin(
        'POST',
        `/merchants/${encodeURIComponent(shop.serviceUserName)}/campaigns`,
        {
          name: `Ten off P1, ${name}`,
          type: 'product',
          discount: { percent: 10 },
          products: [{ plu: 'P1' }],
          ...limits,
        },
      );
      if (campaign.status !== 201) throw new Error(`campaign: ${JSON.stringify(campaign.body)}`);
      const shopCards: string[] = [];
      for (let i = 0; i < PROFILES; i += 20) {
        shopCards.push(
          ...(await Promise.all(Array.from({ length: 20 }, () => fundedProfile(client, shop, FUNDED)))),
        );
      }
      return { shop, shopCards };
    };
    // Limited per customer (a limit no order reaches): each order is priced on its customer's uses,
    // which the write checks again under the customer's lock.
    const limitedShop = await campaignShop('limited', { usageLimitPerConsumer: 1_000_000_000 });
    // With a budget (one no order reaches): every order books the same budget, under its lock.
    const budgetShop = await campaignShop('budgeted', { budget: { redemptions: 1_000_000_000 } });
    const slice = Math.max(2, Math.round(DURATION_SEC / ROUNDS));
    const orderOf = (card: string, n = -1) => {
      const body = JSON.stringify(n < 0 ? coffeeOrder(who, card, 1) : menuOrder(who, card, n));
      return { path: '/api/v1/orders', body, headers: signed(who, body) };
    };
    const baselineBody = JSON.stringify(coffeeOrder(who, cards[0] ?? '', 1));
    const menuBaselineBody = JSON.stringify(menuOrder(who, cards[0] ?? '', 0));
    const json = {
      connections: CONNECTIONS,
      headers: { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
    };
    const orders = (seconds: number, make: (n: number) => LoadRequest) =>
      tallyLoad({
        ...json,
        url: service.baseUrl,
        seconds,
        next: prepared(seconds, make),
        isRefusal: (status, body) => status === 422 && body.includes('insufficient_balance'),
      });
    const runBaseline = (prefix: string, seconds: number, body = baselineBody) =>
      tallyLoad({
        ...json,
        url: baseline.baseUrl,
        seconds,
        next: prepared(seconds, (n) => ({ path: `/baseline/${prefix}-${n}`, body })),
        isRefusal: () => false,
      });
    const runDistinct = (seconds: number) => orders(seconds, (n) => orderOf(cards[n % PROFILES] ?? ''));
    const runMenu = (seconds: number) => orders(seconds, (n) => orderOf(cards[n % PROFILES] ?? '', n));
    const runCampaign = (at: { shop: CheckoutIdentity; shopCards: string[] }) => (seconds: number) =>
      orders(seconds, (n) => {
        const body = JSON.stringify({
          ...coffeeOrder(at.shop, at.shopCards[n % PROFILES] ?? '', 1),
          totalGross: 90,
        });
        return { path: '/api/v1/orders', body, headers: signed(at.shop, body) };
      });
    const runLimited = runCampaign(limitedShop);
    const runBudgeted = runCampaign(budgetShop);
    await runBaseline('warm', 2);
    warm = [await runDistinct(2), await runMenu(1), await runLimited(1), await runBudgeted(1)];
    const b: TalliedRun[] = [];
    const bm: TalliedRun[] = [];
    const d: TalliedRun[] = [];
    const m: TalliedRun[] = [];
    const h: TalliedRun[] = [];
    const l: TalliedRun[] = [];
    const g: TalliedRun[] = [];
    const cpu = {
      baseline: { server: 0, database: 0 },
      menuBaseline: { server: 0, database: 0 },
      distinct: { server: 0, database: 0 },
      menu: { server: 0, database: 0 },
      hot: { server: 0, database: 0 },
      limited: { server: 0, database: 0 },
      budgeted: { server: 0, database: 0 },
    };
    const batches = { distinct: NO_BATCHES, menu: NO_BATCHES };
    /** `run`, with the order writer's batches meanwhile added to `batches[key]`. */
    const counted = async <T>(key: 'distinct' | 'menu', run: () => Promise<T>): Promise<T> => {
      const before = await writeBatches(service.baseUrl, 'checkout_orders');
      const result = await run();
      const between = batchesBetween(before, await writeBatches(service.baseUrl, 'checkout_orders'));
      batches[key] = addBatches(batches[key], between);
      return result;
    };
    for (let round = 0; round < ROUNDS; round++) {
      b.push(
        await measuredCpu(baseline, baselineDb.name, cpu.baseline, () => runBaseline(`r${round}`, slice)),
      );
      d.push(
        await counted('distinct', () =>
          measuredCpu(service, serviceDb.name, cpu.distinct, () => runDistinct(slice)),
        ),
      );
      bm.push(
        await measuredCpu(baseline, baselineDb.name, cpu.menuBaseline, () =>
          runBaseline(`m${round}`, slice, menuBaselineBody),
        ),
      );
      m.push(
        await counted('menu', () => measuredCpu(service, serviceDb.name, cpu.menu, () => runMenu(slice))),
      );
      h.push(await measuredCpu(service, serviceDb.name, cpu.hot, () => orders(slice, () => orderOf(hot))));
      l.push(await measuredCpu(service, serviceDb.name, cpu.limited, () => runLimited(slice)));
      g.push(await measuredCpu(service, serviceDb.name, cpu.budgeted, () => runBudgeted(slice)));
    }
    measured = {
      baseline: combineTurns(b),
      menuBaseline: combineTurns(bm),
      distinct: combineTurns(d),
      menu: combineTurns(m),
      hot: combineTurns(h),
      limited: combineTurns(l),
      budgeted: combineTurns(g),
      cpu,
      batches,
      turns: {
        distinct: turnRatios(d, b),
        menu: turnRatios(m, b),
        menuSameBody: turnRatios(m, bm),
        hot: turnRatios(h, b),
        limited: turnRatios(l, b),
        budgeted: turnRatios(g, b),
      },
    };
  } finally {
    await client.close();
    await service.stop();
    await baseline.stop();
  }
  // Three shops' profiles, and the hot profile funded with 500.00.
  const { stored, ...money } = await moneyCheck(serviceDb.env, FUNDED * PROFILES * 3 + 50_000);
  const all = combineTurns([
    ...warm,
    measured.distinct,
    measured.menu,
    measured.hot,
    measured.limited,
    measured.budgeted,
  ]);
  return { kind, ...measured, money, placed: { answered: all.ok, unanswered: all.unanswered, stored } };
}

/**
 * After a run, on the service's database: what the orders charged (checkout_orders), what the
 * profiles' balances lost against what they were funded with, and the ledger's own check.
 */
function moneyCheck(
  env: Record<string, string>,
  fundedMinor: number,
): Promise<{ charged: number; moved: number; stored: number; ledgerViolations: number }> {
  return afterRun(env, async (db) => {
    const charged = await sql<{ n: string; orders: number }>`
      SELECT COALESCE(sum(charged_minor), 0)::text AS n, count(*)::int AS orders
        FROM checkout_orders`.execute(db);
    const held = await sql<{ n: string }>`
      SELECT COALESCE(sum(a.balance_minor), 0)::text AS n
        FROM profiles p JOIN ledger_accounts a ON a.id = p.account_id`.execute(db);
    return {
      charged: Number(charged.rows[0]?.n ?? 0),
      moved: fundedMinor - Number(held.rows[0]?.n ?? 0),
      stored: charged.rows[0]?.orders ?? 0,
    };
  });
}

const f = (n: number, d = 0) => n.toFixed(d);

function placedExact(p: OrdersRow['placed']): boolean {
  return p.stored >= p.answered && p.stored <= p.answered + p.unanswered;
}

export function ordersTable(rows: OrdersRow[]): string {
  const lines = [
    '| database | scenario | req/s | p50 ms | p99 ms | charged | insufficient_balance | other errors | CPU ms/request (server + PostgreSQL) | throughput vs baseline (median of turns) | p99 vs baseline (median of turns) |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const line = (
      name: string,
      x: TalliedRun,
      cpu: CpuUse,
      ok: string,
      insufficient: string,
      t?: TurnRatios,
    ) =>
      `| ${r.kind} | ${name} | ${f(x.requestsPerSec)} | ${f(x.p50Ms, 1)} | ${f(x.p99Ms, 1)} | ${ok} | ${insufficient} | ${x.other} | ${cpuCell(cpu, x.total)} | ${t ? f(t.medianThroughput, 2) : '1.00'} | ${t ? f(t.medianP99, 2) : '1.00'} |`;
    lines.push(line('baseline (parse order + 1 INSERT)', r.baseline, r.cpu.baseline, '-', '-'));
    lines.push(
      line(`baseline, the ${POSITIONS} positions' order body`, r.menuBaseline, r.cpu.menuBaseline, '-', '-'),
    );
    const scenarios: [Exclude<keyof OrdersRow['turns'], 'menuSameBody'>, string][] = [
      ['distinct', `order 1.00 from balance, ${PROFILES} profiles`],
      ['menu', `order of ${POSITIONS} positions (${MENU.length + 1}-article menu), ${PROFILES} profiles`],
      ['hot', 'order 1.00 from balance, one hot profile (500.00)'],
      ['limited', `order 1.00 a campaign limited per customer rewards (10 % off), ${PROFILES} profiles`],
      ['budgeted', `order 1.00 a campaign with a budget rewards (10 % off), ${PROFILES} profiles`],
    ];
    for (const [key, name] of scenarios) {
      const x = r[key];
      lines.push(line(name, x, r.cpu[key], String(x.ok), String(x.refused), r.turns[key]));
    }
  }
  for (const r of rows) {
    lines.push(
      '',
      `${r.kind}, turn by turn against the baseline's turn of the same round: one position ${turnsText(r.turns.distinct)}; ` +
        `${POSITIONS} positions ${turnsText(r.turns.menu)}, against the baseline of their own body ` +
        `${turnsText(r.turns.menuSameBody)} (median ${f(r.turns.menuSameBody.medianThroughput, 2)}, p99 ` +
        `${f(r.turns.menuSameBody.medianP99, 2)}); one hot profile ${turnsText(r.turns.hot)}; ` +
        `limited per customer ${turnsText(r.turns.limited)}; with a budget ${turnsText(r.turns.budgeted)}.`,
      '',
      `${r.kind}, the order writer in the turns (the service's /metrics): one position ${batchesText('orders', r.batches.distinct)}; ` +
        `${POSITIONS} positions ${batchesText('orders', r.batches.menu)}.`,
      '',
      `${r.kind}: the orders charged ${r.money.charged} (minor units), the profiles' balances lost ${r.money.moved}` +
        ` (${r.money.charged === r.money.moved ? 'equal' : 'NOT EQUAL'}); ${ledgerVerdict(r.money.ledgerViolations)}` +
        ` ${r.placed.answered} orders answered as placed and ${r.placed.unanswered} in flight when a turn's time` +
        ` was up (warm-up included), ${r.placed.stored} stored (${placedExact(r.placed) ? 'every answered order stored, none twice' : 'NOT EXACT'}).`,
    );
  }
  return lines.join('\n');
}

export async function runOrdersBench(kinds: Kind[]): Promise<string> {
  const rows = await runOrdersRows(kinds);
  const pg = rows.find((r) => r.kind === 'postgres');
  if (pg !== undefined) {
    recordFigures([
      { row: 'orders_one', figure: pg.turns.distinct.medianThroughput },
      { row: 'orders_six', figure: pg.turns.menu.medianThroughput },
    ]);
  }
  return [
    '## Checkout orders paid from the balance',
    '',
    '`npm run bench -- orders`: signed orders (Security-Token, Idempotency-Key) of one article, and of',
    `${POSITIONS} different articles (one or two of each; prices and VAT rates of a ${MENU.length + 1}-article menu), priced from`,
    `the menu and charged to the profile balance, over HTTP, ${CONNECTIONS} connections, ${DURATION_SEC} s per scenario in`,
    'five turns alternating with the one-INSERT baseline (the one-position order body parsed and inserted), on the',
    'same database; pools of 32 connections; the requests of each turn made and signed before it starts.',
    'Targets on PostgreSQL: at least 0.70 of the baseline throughput',
    'and p99 at most 2x on distinct profiles; on the hot profile no error other than insufficient_balance.',
    "The last row, without a target: a shop's orders that a campaign with a usage limit per customer",
    "rewards, priced on the customer's uses, which the batched writer checks again under the customer's lock.",
    "Each ratio is the median of the five turns' ratios, a turn against the baseline's turn just before it.",
    `The ${POSITIONS} positions' turns are also set against a baseline turn of their own order body (the same`,
    'route inserting that body), since the target is set against one INSERT of the same body; the line',
    'under the table gives those ratios.',
    'After the run the money is checked on the database: what the orders charged equals what the',
    "profiles' balances lost, and the ledger's own check (`npm run ledger:verify`'s) finds nothing.",
    '',
    ordersTable(rows),
  ].join('\n');
}
