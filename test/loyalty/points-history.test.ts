import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import { takePoints } from '../../src/loyalty/points.store.js';
import type { Database } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';
import type { DB } from '../../src/store/schema.js';
import {
  type TestApp,
  type Terminal,
  applyMigrations,
  databases,
  emptyTestDatabase,
  setupTerminal,
  startApp,
} from '../support/harness.js';

/** 1 point per 1.00 spent, kept for a year; 10 points buy one 1001 free. */
const coffeeCard = {
  name: 'Coffee card',
  earn: [{ per: 'amount', amount: 1, points: 1 }],
  pointsExpireAfterDays: 365,
  reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
};
const onceOnly = {
  name: 'Ten percent once',
  type: 'product',
  discount: { percent: 10 },
  products: [{ plu: '2002' }],
  usageLimitPerConsumer: 1,
};
const basket = (positions: { id: number; plu: string; amount: number; price: number }[]) => ({
  Timestamp: '2026-03-02T16:59:00+01:00',
  HasDiscounts: false,
  CurrencyISO: 'EUR',
  Positions: positions.map((p) => ({
    PositionId: p.id,
    ProductId: p.plu,
    Unit: 0,
    Amount: p.amount,
    CurrentGrossPrice: p.price,
  })),
});

/** Violations of the check run inside a transaction that is rolled back: the tampering never stays. */
async function tampered(db: Kysely<DB>, tamper: (trx: Kysely<DB>) => Promise<unknown>): Promise<string[]> {
  let violations: string[] = [];
  const rollback = new Error('rollback');
  await db
    .transaction()
    .execute(async (trx) => {
      await tamper(trx);
      violations = (await verifyPoints(trx)).violations;
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
  return violations;
}

describe.each(databases)('the points history on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;

  /** Earn on an unlinked card, link it, redeem, return everything: every kind of movement. */
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    const u = encodeURIComponent(term.serviceUserName);
    expect((await t.admin('POST', `/merchants/${u}/loyaltySchemes`, coffeeCard)).statusCode).toBe(201);
    expect((await t.admin('POST', `/merchants/${u}/campaigns`, onceOnly)).statusCode).toBe(201);
    const sell = async (basketId: string, positions: Parameters<typeof basket>[0]) => {
      const up = await term.pos('POST', `/baskets/${basketId}`, {
        body: basket(positions),
        query: { consumerIdentToken: 'LOOSE-1' },
      });
      expect(up.statusCode, up.body).toBe(200);
      const granted = await term.pos('POST', `/baskets/${basketId}/grant`, { sign: basketId });
      expect(granted.statusCode, granted.body).toBe(200);
    };
    expect((await term.pos('POST', '/tokens/LOOSE-1', { query: { tokentype: '0' } })).statusCode).toBe(200);
    await sell('B1', [
      { id: 1, plu: '2002', amount: 3, price: 4.1 },
      { id: 2, plu: '3003', amount: 1, price: 2 },
    ]);
    const profile = await t.admin('POST', `/merchants/${u}/profiles`, { fullName: 'Anna Berg' });
    const profileId = (profile.json() as { id: number }).id;
    const link = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: 'LOOSE-1', tokenType: 0 });
    expect(link.statusCode, link.body).toBe(200);
    await sell('B2', [{ id: 1, plu: '1001', amount: 1, price: 2.5 }]);
    // B2 first: its redeemed points come back as a new lot, which B1's take-back then draws on.
    for (const basketId of ['B2', 'B1']) {
      const positions = basketId === 'B1' ? [1, 2] : [1];
      const amounts: Record<number, number> = { 1: basketId === 'B1' ? 3 : 1, 2: 1 };
      const res = await term.pos('POST', `/baskets/${basketId}/return`, {
        body: { ReturnId: 'R1', Positions: positions.map((p) => ({ PositionId: p, Amount: amounts[p] })) },
        sign: `${basketId}R1`,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  });
  afterAll(() => t?.close());

  it('earn, spend, return take-back and give-back and the card-link move are all recorded, and add up', async () => {
    const kinds = await t.database.db.selectFrom('points_movements').select('kind').distinct().execute();
    expect(kinds.map((k) => k.kind).sort()).toEqual([
      'earn',
      'move_in',
      'move_out',
      'return_earned',
      'return_spent',
      'spend',
    ]);
    const usageKinds = await t.database.db
      .selectFrom('campaign_usage_movements')
      .select('kind')
      .distinct()
      .execute();
    expect(usageKinds.map((k) => k.kind).sort()).toEqual(['move_in', 'move_out', 'release', 'use']);
    const report = await verifyPoints(t.database.db);
    expect(report.violations).toEqual([]);
    expect(report.lots).toBeGreaterThan(0);
    expect(report.movements).toBeGreaterThan(report.lots);
    // Every lot expires (the scheme keeps points a year), so the check compared real expiries.
    const expiring = await t.database.db
      .selectFrom('points_lots')
      .select('id')
      .where('expires_at', 'is not', null)
      .execute();
    expect(expiring).toHaveLength(report.lots);
  });

  it('concurrent grants of one consumer spend every point once, and the history holds', async () => {
    expect((await term.pos('POST', '/tokens/LOOSE-2', { query: { tokentype: '0' } })).statusCode).toBe(200);
    const upload = async (basketId: string, positions: Parameters<typeof basket>[0]) => {
      const up = await term.pos('POST', `/baskets/${basketId}`, {
        body: basket(positions),
        query: { consumerIdentToken: 'LOOSE-2' },
      });
      expect(up.statusCode, up.body).toBe(200);
    };
    const grant = (basketId: string) => term.pos('POST', `/baskets/${basketId}/grant`, { sign: basketId });
    await upload('C0', [{ id: 1, plu: '3003', amount: 1, price: 25 }]);
    expect((await grant('C0')).statusCode).toBe(200);
    // Every upload sees the 25 points and offers the reward; the grants decide under the lock.
    const ids = Array.from({ length: 6 }, (_, i) => `C${i + 1}`);
    for (const basketId of ids) await upload(basketId, [{ id: 1, plu: '1001', amount: 1, price: 2.5 }]);
    const grants = await Promise.all(ids.map(grant));
    let redeemed = 0;
    let change = 0;
    for (const res of grants) {
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as {
        Rewards: unknown[];
        LoyaltyInfo: { Details: { PreviousPoints: number; NewPoints: number }[] }[];
      };
      redeemed += body.Rewards.length;
      const detail = body.LoyaltyInfo[0]?.Details[0];
      change += (detail?.NewPoints ?? 0) - (detail?.PreviousPoints ?? 0);
    }
    const held = await t.database.db
      .selectFrom('points_lots as l')
      .innerJoin('cards as c', 'c.id', 'l.card_id')
      .select((eb) => eb.fn.sum<string>('l.remaining').as('points'))
      .where('c.token_id', '=', 'LOOSE-2')
      .executeTakeFirstOrThrow();
    expect(redeemed).toBeGreaterThanOrEqual(2);
    expect(Number(held.points)).toBe(25 + change);
    expect(Number(held.points)).toBeGreaterThanOrEqual(0);
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
  });

  it('movements are immutable: UPDATE and DELETE are refused', async () => {
    const db = t.database.db;
    await expect(db.updateTable('points_movements').set({ points: 1000 }).execute()).rejects.toThrow(
      /immutable/,
    );
    await expect(db.deleteFrom('points_movements').execute()).rejects.toThrow(/immutable/);
    await expect(db.updateTable('campaign_usage_movements').set({ count: 5 }).execute()).rejects.toThrow(
      /immutable/,
    );
    await expect(db.deleteFrom('campaign_usage_movements').execute()).rejects.toThrow(/immutable/);
    await expect(db.updateTable('points_lots').set({ points: 1000 }).execute()).rejects.toThrow(
      /only its remaining points/,
    );
    await expect(db.deleteFrom('campaign_usages').execute()).rejects.toThrow(/only its release/);
  });

  it('the check catches a lot that does not hold the sum of its movements', async () => {
    const violations = await tampered(t.database.db, (trx) =>
      trx
        .updateTable('points_lots')
        .set({ remaining: sql<number>`remaining + 1` })
        .where('remaining', '<', sql<number>`points`)
        .execute(),
    );
    expect(violations.some((v) => /^lot \d+: holds \d+, its movements add up to \d+$/.test(v))).toBe(true);
    expect(violations.some((v) => /movements add up to \d+, lots hold \d+$/.test(v))).toBe(true);
  });

  it('the check catches a forged movement: the lot, the consumer and the grant no longer balance', async () => {
    const violations = await tampered(t.database.db, async (trx) => {
      const lot = await trx
        .selectFrom('points_movements')
        .selectAll()
        .where('kind', '=', 'earn')
        .where('basket_id', '=', 'B1')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('points_movements')
        .values({ ...lot, id: undefined, pre_opening: undefined, kind: 'earn', points: 5 })
        .execute();
    });
    expect(violations.some((v) => /^lot \d+: holds/.test(v))).toBe(true);
    expect(violations.some((v) => /not created exactly once/.test(v))).toBe(true);
    const grant = violations
      .map((v) => /\/B1 scheme \d+: granted earned (\d+) spent 0, movements earned (\d+)/.exec(v))
      .find((m) => m !== null);
    expect(Number(grant?.[2]) - Number(grant?.[1])).toBe(5);
  });

  it('the check catches a take-back the return did not book, and a usage released without its movement', async () => {
    const violations = await tampered(t.database.db, async (trx) => {
      const lot = await trx
        .selectFrom('points_lots')
        .select(['id', 'merchant_id', 'scheme_id', 'profile_id', 'card_id'])
        .where('basket_id', '=', 'B2')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('points_movements')
        .values({
          merchant_id: lot.merchant_id,
          scheme_id: lot.scheme_id,
          profile_id: lot.profile_id,
          card_id: lot.card_id,
          kind: 'return_earned',
          points: -1,
          lot_id: lot.id,
          tracking_unit_id: term.trackingUnitId,
          basket_id: 'B2',
          return_id: 'R1',
          created_at: new Date(),
          expires_at: null,
          link_card_id: null,
        })
        .execute();
      await trx
        .insertInto('campaign_usages')
        .values({
          merchant_id: lot.merchant_id,
          tracking_unit_id: term.trackingUnitId,
          basket_id: 'B2',
          campaign_id: 999999,
          profile_id: lot.profile_id,
          card_id: null,
          used: 1,
          created_at: new Date(),
        })
        .execute();
    });
    const taken = violations
      .map((v) =>
        /\/B2 return R1 scheme \d+: booked taken (\d+) of \d+ given back 10, movements taken (\d+)/.exec(v),
      )
      .find((m) => m !== null);
    expect(Number(taken?.[2]) - Number(taken?.[1])).toBe(1);
    expect(
      violations.some((v) => /^usage .*\/B2 campaign 999999: counts 1 used 0 released, movements 0/.test(v)),
    ).toBe(true);
  });
});

describe.each(databases)('upgrading to the verified points history on %s', (kind) => {
  let fresh: { database: Database; drop(): Promise<void> };
  beforeAll(async () => {
    fresh = await emptyTestDatabase(kind);
  });
  afterAll(() => fresh?.drop());

  it('the lots of an upgraded database become opening movements and the check holds', async () => {
    const db = fresh.database.db;
    await applyMigrations(fresh.database, (name) => name < '0010-points-history');
    // Points as the previous release wrote them: a card's lot spent from and moved to a profile
    // (one `move` row for both holders), a profile's live lot, an emptied lot, two usages.
    await sql`INSERT INTO merchants (id, service_user_name, display_name, currency, time_zone)
              VALUES (1, 'm', 'm', 'EUR', 'Europe/Berlin')`.execute(db);
    await sql`INSERT INTO ledger_accounts (merchant_id, id, kind, currency) VALUES (1, 1, 'profile', 'EUR'),
              (1, 2, 'card', 'EUR')`.execute(db);
    await sql`INSERT INTO profiles (merchant_id, id, account_id) VALUES (1, 1, 1)`.execute(db);
    await sql`INSERT INTO cards (merchant_id, id, token_id, token_type, state, profile_id, account_id,
              registered_at, updated_at) VALUES (1, 1, 'C1', 0, 'registered', 1, 2, now(), now())`.execute(
      db,
    );
    await sql`INSERT INTO points_lots (merchant_id, id, scheme_id, profile_id, card_id, points, remaining,
              earned_at, expires_at, tracking_unit_id, basket_id) VALUES
              (1, 1, 7, 1, NULL, 10, 6, now(), NULL, 'u', 'b1'),
              (1, 2, 7, 1, NULL, 5, 5, now(), now() + interval '30 days', 'u', 'b2'),
              (1, 3, 7, 1, NULL, 3, 0, now(), NULL, 'u', 'b3')`.execute(db);
    await sql`SELECT setval('points_lots_id_seq', 3)`.execute(db);
    await sql`INSERT INTO points_movements (merchant_id, scheme_id, profile_id, card_id, kind, points, lot_id,
              tracking_unit_id, basket_id, return_id, created_at) VALUES
              (1, 7, NULL, 1, 'earn', 10, 1, 'u', 'b1', NULL, now()),
              (1, 7, NULL, 1, 'spend', -4, 1, 'u', 'b2', NULL, now()),
              (1, 7, 1, 1, 'move', 6, 1, NULL, NULL, NULL, now()),
              (1, 7, 1, NULL, 'earn', 5, 2, 'u', 'b2', NULL, now()),
              (1, 7, 1, NULL, 'earn', 3, 3, 'u', 'b3', NULL, now()),
              (1, 7, 1, NULL, 'spend', -3, 3, 'u', 'b4', NULL, now())`.execute(db);
    await sql`INSERT INTO campaign_usages (merchant_id, tracking_unit_id, basket_id, campaign_id, profile_id,
              card_id, used, released, created_at) VALUES
              (1, 'u', 'b1', 9, 1, NULL, 1, 1, now()),
              (1, 'u', 'b2', 9, 1, NULL, 2, 0, now())`.execute(db);
    const migration = migrations.find((m) => m.name === '0010-points-history');
    if (!migration) throw new Error('migration 0010 missing');
    for (const statement of migration.statements) await sql.raw(statement).execute(db);

    const openings = await db
      .selectFrom('points_movements')
      .select(['lot_id', 'points', 'profile_id'])
      .where('kind', '=', 'opening')
      .orderBy('lot_id')
      .execute();
    expect(openings).toEqual([
      { lot_id: 1, points: 6, profile_id: 1 },
      { lot_id: 2, points: 5, profile_id: 1 },
      { lot_id: 3, points: 0, profile_id: 1 },
    ]);
    expect((await verifyPoints(db)).violations).toEqual([]);

    // Booking goes on after the upgrade, and the check still holds; the old rows stay as they were.
    const spent = await db
      .transaction()
      .execute((trx) =>
        takePoints(
          trx,
          { merchantId: 1, trackingUnitId: 'u', basketId: 'b5' },
          { profileId: 1 },
          7,
          8,
          Date.now(),
          'spend',
          null,
        ),
      );
    expect(spent).toBe(8);
    const report = await verifyPoints(db);
    // b5 was never granted, so its spending is the one thing out of balance.
    expect(report.violations).toEqual([
      'basket u/b5 scheme 7: granted earned 0 spent 0, movements earned 0 spent 8',
    ]);
    await expect(sql`UPDATE points_movements SET points = 0 WHERE pre_opening`.execute(db)).rejects.toThrow(
      /immutable/,
    );
  });
});
