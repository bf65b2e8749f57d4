import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  VACUUM_AFTER_CHANGES,
  foldDashboard,
  foldDashboardChanges,
} from '../../src/reports/dashboard-days.store.js';
import { DASHBOARD_BACKFILL } from '../../src/store/migrations/0036-dashboard-days.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { type PortalSession, portalCall, portalSession } from './portal-support.js';

/**
 * The dashboard's figures kept per day (docs/decisions.md, "Dashboard figures kept per day"): the
 * changes the triggers on the tables the upload, the grant and the return write append, folded into
 * the figures, keep them equal to what a sum over the rows gives (the migration's backfill, run
 * again here), on the day of the basket's time in the merchant's time zone, also for a basket
 * granted days after it was bought.
 */
const PASSWORD = 'a-long-enough-password';
/** 2026-11-10 00:00 in Berlin. */
const DAY0 = Date.parse('2026-11-09T23:00:00Z');
const HOUR = 3_600_000;
const TABLES = ['dashboard_hours', 'dashboard_articles', 'dashboard_campaigns'] as const;

describe.each(databases)('figures kept per day (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;
  let merchantId = 0;

  const upload = async (basketId: string, atMs: number, total?: number) => {
    const res = await term.pos('POST', `/baskets/${basketId}`, {
      body: {
        Timestamp: new Date(atMs).toISOString().replace('Z', '+00:00'),
        HasDiscounts: false,
        CurrencyISO: 'EUR',
        ...(total === undefined ? {} : { TotalValue: total }),
        Positions: [
          {
            PositionId: 1,
            ProductId: '1001',
            ProductName: 'Cappuccino',
            Unit: 0,
            Amount: 2,
            CurrentGrossPrice: 3.2,
          },
          { PositionId: 2, ProductName: 'Water', Unit: 0, Amount: 1, CurrentGrossPrice: 1.5 },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  const grant = async (basketId: string) => {
    const res = await term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  /** The kept rows of the merchant, in key order, as text, the changes since the last view added. */
  const kept = async (db = t.database.db) => {
    await foldDashboardChanges(db, merchantId);
    const out: Record<string, unknown[]> = {};
    for (const table of TABLES) {
      const rows = await sql<Record<string, unknown>>`
        SELECT * FROM ${sql.table(table)} WHERE merchant_id = ${merchantId}
         ORDER BY 1, 2, 3, 4`.execute(db);
      out[table] = rows.rows.map((r) => JSON.stringify(r));
    }
    return out;
  };
  /** The same rows computed from scratch over the baskets, usages and points (and undone). */
  const fromScratch = async () => {
    let out: Record<string, unknown[]> = {};
    await t.database.db
      .transaction()
      .execute(async (trx) => {
        for (const table of TABLES) await sql`DELETE FROM ${sql.table(table)}`.execute(trx);
        for (const statement of DASHBOARD_BACKFILL) await sql.raw(statement).execute(trx);
        out = await kept(trx);
        throw new Error('undo');
      })
      .catch((e: unknown) => {
        if (!(e instanceof Error) || e.message !== 'undo') throw e;
      });
    return out;
  };
  const hour = async (day: string, h: number) => {
    await foldDashboardChanges(t.database.db, merchantId);
    return (
      await sql<Record<string, string>>`
        SELECT baskets, open_baskets, sales_minor, rewards_minor, with_total_value, total_value_differs
          FROM dashboard_hours WHERE merchant_id = ${merchantId} AND day = ${day}::date AND hour = ${h}`.execute(
        t.database.db,
      )
    ).rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)])))[0];
  };
  const dashboard = async (from: string, to: string) => {
    const res = await portalCall(t, owner, 'GET', `/dashboard?from=${from}&to=${to}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as {
      totals: {
        baskets: number;
        openBaskets: number;
        salesMinor: number;
        rewardsMinor: number;
        returns: number;
      };
      hours: { hour: number; baskets: number; revenueMinor: number }[];
      topArticlesByRevenue: { plu: string | null; quantity: string; salesMinor: number }[];
      topByUse: { name: string; uses: number; costMinor: number }[];
    };
  };

  beforeAll(async () => {
    t = await startApp(kind);
    t.clock.ms = DAY0 + 8 * HOUR;
    term = await setupTerminal(t);
    const u = encodeURIComponent(term.serviceUserName);
    const c = await t.admin('POST', `/merchants/${u}/campaigns`, {
      name: 'Cappuccino -20 %',
      type: 'product',
      products: [{ plu: '1001' }],
      discount: { percent: 20 },
    });
    expect(c.statusCode, c.body).toBe(201);
    await t.admin('POST', `/merchants/${u}/portalUsers`, {
      email: `days-${kind}@dash.test`,
      password: PASSWORD,
    });
    owner = await portalSession(t, `days-${kind}@dash.test`, PASSWORD);
    merchantId = Number(
      (
        await sql<{
          id: string;
        }>`SELECT id FROM merchants WHERE service_user_name = ${term.serviceUserName}`.execute(t.database.db)
      ).rows[0]?.id,
    );
  }, 120_000);
  afterAll(() => t?.close());

  it('an upload counts an open basket and its grant moves it to the granted ones with its sales and rewards, on the local day and hour of the basket', async () => {
    // 09:30 in Berlin is 08:30 UTC: the hour kept is the local one.
    await upload('bill-1', DAY0 + 9 * HOUR + 30 * 60_000, 7.9);
    expect(await hour('2026-11-10', 9)).toMatchObject({ baskets: 0, open_baskets: 1, sales_minor: 0 });
    await grant('bill-1');
    expect(await hour('2026-11-10', 9)).toEqual({
      baskets: 1,
      open_baskets: 0,
      sales_minor: 790,
      rewards_minor: 128,
      with_total_value: 1,
      total_value_differs: 0,
    });
    expect(await kept()).toEqual(await fromScratch());
  });

  it('a return the next days moves the uses its campaign lost, and the dashboard counts it on its own day', async () => {
    await upload('bill-2', DAY0 + 11 * HOUR);
    t.clock.ms = DAY0 + 24 * HOUR * 2 + 10 * HOUR;
    const res = await term.pos('POST', '/baskets/bill-1/return', {
      body: {
        ReturnId: 'ret-1',
        Positions: [
          { PositionId: 1, Amount: 2 },
          { PositionId: 2, Amount: 1 },
        ],
      },
      sign: 'bill-1ret-1',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await kept()).toEqual(await fromScratch());
    const uses = await sql<{ uses: string }>`
      SELECT sum(uses) AS uses FROM dashboard_campaigns WHERE merchant_id = ${merchantId}`.execute(
      t.database.db,
    );
    expect(Number(uses.rows[0]?.uses)).toBe(0);
    t.clock.ms = DAY0 + 24 * HOUR * 3 + 10 * HOUR;
    owner = await portalSession(t, `days-${kind}@dash.test`, PASSWORD);
    expect((await dashboard('2026-11-12', '2026-11-12')).totals.returns).toBe(1);
    expect((await dashboard('2026-11-10', '2026-11-10')).totals).toMatchObject({
      baskets: 1,
      openBaskets: 1,
      salesMinor: 790,
      rewardsMinor: 128,
      returns: 0,
    });
  });

  it('a late grant for an earlier day moves that day, not the day of the grant', async () => {
    // bill-2 was bought on the 10th at 11:00 and is granted on the 13th.
    await grant('bill-2');
    expect(await hour('2026-11-10', 11)).toMatchObject({ baskets: 1, open_baskets: 0, sales_minor: 790 });
    expect(await hour('2026-11-13', 11)).toBeUndefined();
    expect(await kept()).toEqual(await fromScratch());
    const d = await dashboard('2026-11-10', '2026-11-12');
    expect(d.totals).toMatchObject({
      baskets: 2,
      openBaskets: 0,
      salesMinor: 1580,
      rewardsMinor: 256,
      returns: 1,
    });
    expect(d.hours.filter((h) => h.baskets > 0)).toEqual([
      { hour: 9, baskets: 1, revenueMinor: 662 },
      { hour: 11, baskets: 1, revenueMinor: 662 },
    ]);
    expect(d.topArticlesByRevenue).toEqual([
      { plu: '1001', name: 'Cappuccino', quantity: '4', salesMinor: 1280 },
      { plu: null, name: null, quantity: '2', salesMinor: 300 },
    ]);
    // Uses (pieces the campaign discounted) count on the day the grant booked them (bill-2's two
    // cappuccinos on the 13th, "today", read from the rows), less the returned ones;
    // the cost on the day of the basket.
    expect(d.topByUse.map((c) => [c.name, c.uses, c.costMinor])).toEqual([['Cappuccino -20 %', 0, 256]]);
    expect((await dashboard('2026-11-13', '2026-11-13')).topByUse.map((c) => c.uses)).toEqual([2]);
  });

  if (kind === 'pglite')
    it('on the embedded database, which runs no autovacuum, the changes folded do not stay behind as dead rows for every later view to read', async () => {
      const db = t.database.db;
      const before = await kept();
      // Changes that add up to nothing (+1 and −1 of the same points, in the hour of bill-1 at its
      // outlet), as many as start a vacuum.
      const at = new Date(DAY0 + 9 * HOUR + 30 * 60_000);
      await sql`
        INSERT INTO dashboard_changes (merchant_id, kind, sign, at, outlet_id, points_earned, points_redeemed)
        SELECT ${merchantId}, 'points', v.sign, ${at}, ${term.outletId}, 1, 0
          FROM generate_series(1, ${VACUUM_AFTER_CHANGES / 2}) AS g(n), (VALUES (1), (-1)) AS v(sign)`.execute(
        db,
      );
      const pages = async () =>
        Number(
          (await sql<{ n: string }>`SELECT pg_relation_size('dashboard_changes') / 8192 AS n`.execute(db))
            .rows[0]?.n,
        );
      expect(await pages()).toBeGreaterThan(10);
      expect(await foldDashboard(t.database, merchantId)).toBe(VACUUM_AFTER_CHANGES);
      expect(await pages()).toBe(0);
      expect(await kept()).toEqual(before);
    });
});
