import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BasketDeps } from '../../src/baskets/basket-deps.js';
import { grantBasket } from '../../src/baskets/basket-grant.js';
import type { BasketTerminal } from '../../src/baskets/basket.types.js';
import { type GrantOutcome, type GrantWrite, GrantWriter } from '../../src/baskets/grant-write.store.js';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import {
  type TestApp,
  type Terminal,
  basketTerminalOf,
  countingStatements,
  databases,
  setupTerminal,
  startApp,
} from '../support/harness.js';

/** 1 point per 1.00; 10 points buy one PLU 1001 free. */
const coffeeCard = {
  name: 'Coffee card',
  earn: [{ per: 'amount', amount: 1, points: 1 }],
  reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
};
const basket = (plu: string, price: number) => ({
  Timestamp: '2026-03-02T12:00:00+01:00',
  HasDiscounts: false,
  CurrencyISO: 'EUR',
  Positions: [{ PositionId: 1, ProductId: plu, Unit: 0, Amount: 1, CurrentGrossPrice: price }],
});
const noLegacyBody = () => {
  throw new Error('every basket here has its parsed form stored');
};

describe.each(databases)('group commit of basket grants on %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(async () => {
    if (!t) return;
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
    await t.close();
  });

  const unitOf = (term: Terminal): Promise<BasketTerminal> => basketTerminalOf(t, term);

  async function upload(term: Terminal, basketId: string, body: object, card?: string): Promise<void> {
    const res = await term.pos('POST', `/baskets/${basketId}`, {
      body,
      ...(card ? { query: { consumerIdentToken: card } } : {}),
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  /** A merchant with the coffee card and a customer card of its own. */
  async function coffeeShop(): Promise<{ term: Terminal; card: string }> {
    const term = await setupTerminal(t);
    const u = encodeURIComponent(term.serviceUserName);
    expect((await t.admin('POST', `/merchants/${u}/loyaltySchemes`, coffeeCard)).statusCode).toBe(201);
    const card = `C-${term.trackingUnitId.slice(0, 8)}`;
    expect((await term.pos('POST', `/tokens/${card}`, { query: { tokentype: '0' } })).statusCode).toBe(200);
    return { term, card };
  }

  /** The app's grants, with `meddle` run after each write and before its outcome is taken. */
  function meddling(meddle: (outcome: GrantOutcome) => Promise<void>): {
    deps: BasketDeps;
    writes: GrantOutcome['status'][];
  } {
    const real = t.app.services.baskets.grants;
    const writes: GrantOutcome['status'][] = [];
    const grants = {
      async write(g: GrantWrite) {
        const outcome = await real.write(g);
        writes.push(outcome.status);
        await meddle(outcome);
        return outcome;
      },
    };
    return { deps: { ...t.app.services.baskets, grants }, writes };
  }

  it('grants that arrive together are written in one statement, each with its own outcome', async () => {
    const term = await setupTerminal(t);
    const ids = Array.from({ length: 6 }, (_, i) => `GG-${i}`);
    for (const basketId of ids) await upload(term, basketId, basket('2002', 3));
    const { db, statements } = countingStatements(t.database.db);
    const deps: BasketDeps = {
      ...t.app.services.baskets,
      grants: new GrantWriter(db, { concurrency: 1, maxBatch: 64 }),
    };
    const unit = await unitOf(term);
    const grant = (basketId: string) => grantBasket(deps, unit, basketId, true, noLegacyBody);
    const outcomes = await Promise.allSettled([
      ...ids.map(grant),
      // The same basket again in the same batch: it answers the booking of the first.
      grant('GG-0'),
      grant('GG-unknown'),
    ]);
    expect(statements()).toBe(1);
    for (const [i, basketId] of [...ids, 'GG-0'].entries()) {
      expect(outcomes[i]).toEqual({
        status: 'fulfilled',
        value: { BasketId: basketId, Granted: true, Rewards: [], LoyaltyInfo: [] },
      });
    }
    expect(outcomes[7]).toMatchObject({ status: 'rejected', reason: { entry: { errorId: 11011 } } });
    const receipts = await t.database.db
      .selectFrom('receipts')
      .select('source_ref')
      .where('source_ref', 'like', `${term.trackingUnitId}/GG-%`)
      .execute();
    expect(receipts).toHaveLength(ids.length);
  });

  it('a grant is booked only on the points its evaluation saw: points spent meanwhile make it evaluate again', async () => {
    const { term, card } = await coffeeShop();
    // 10 points, then two baskets that each redeem them.
    await upload(term, 'E0', basket('3003', 10), card);
    expect((await term.pos('POST', '/baskets/E0/grant', { sign: 'E0' })).statusCode).toBe(200);
    await upload(term, 'E1', basket('1001', 2.5), card);
    await upload(term, 'E2', basket('1001', 2.5), card);
    let meddled = false;
    const { deps, writes } = meddling(async (outcome) => {
      if (outcome.status !== 'evaluate' || meddled) return;
      // Between E1's evaluation and its booking, E2 is granted and spends the points.
      meddled = true;
      const e2 = await term.pos('POST', '/baskets/E2/grant', { sign: 'E2' });
      expect(e2.json()).toMatchObject({ Rewards: [{ CouponId: expect.any(Number) }] });
    });
    const e1 = await grantBasket(deps, await unitOf(term), 'E1', true, noLegacyBody);
    expect(writes).toEqual(['evaluate', 'evaluate', 'booked']);
    // E1 saw 10 points at first, but booked on what was left: no reward, nothing spent twice.
    expect(e1.Rewards).toEqual([]);
    expect(e1.LoyaltyInfo[0]?.Details[0]).toMatchObject({ PreviousPoints: 2, NewPoints: 4 });
    const held = await t.database.db
      .selectFrom('points_lots as l')
      .innerJoin('cards as c', 'c.id', 'l.card_id')
      .select((eb) => eb.fn.sum<string>('l.remaining').as('points'))
      .where('c.token_id', '=', card)
      .executeTakeFirstOrThrow();
    expect(Number(held.points)).toBe(4);
  });

  it('a basket uploaded again between its evaluation and its booking is granted as uploaded last', async () => {
    const { term, card } = await coffeeShop();
    await upload(term, 'U1', basket('3003', 20), card);
    const { deps, writes } = meddling(async (outcome) => {
      // Uploaded again, now without the card: no rule touches it any more.
      if (outcome.status === 'evaluate') await upload(term, 'U1', basket('3003', 20));
    });
    const u1 = await grantBasket(deps, await unitOf(term), 'U1', true, noLegacyBody);
    expect(writes).toEqual(['evaluate', 'changed', 'booked']);
    expect(u1).toEqual({ BasketId: 'U1', Granted: true, Rewards: [], LoyaltyInfo: [] });
    const lots = await t.database.db
      .selectFrom('points_lots')
      .select('id')
      .where('tracking_unit_id', '=', term.trackingUnitId)
      .where('basket_id', '=', 'U1')
      .execute();
    expect(lots).toEqual([]);
  });

  it('a grant whose consumer keeps changing is evaluated and booked in one transaction under the locks', async () => {
    const { term, card } = await coffeeShop();
    for (const basketId of ['K0', 'K1', 'K2', 'K3']) await upload(term, basketId, basket('3003', 3), card);
    const others = ['K1', 'K2', 'K3'];
    const { deps, writes } = meddling(async (outcome) => {
      const other = others.shift();
      // After every evaluation, another basket of the consumer earns points.
      if (outcome.status === 'evaluate' && other) {
        expect((await term.pos('POST', `/baskets/${other}/grant`, { sign: other })).statusCode).toBe(200);
      }
    });
    const k0 = await grantBasket(deps, await unitOf(term), 'K0', true, noLegacyBody);
    // Two evaluations booked in batches came too late; the third was booked under the locks.
    expect(writes).toEqual(['evaluate', 'evaluate', 'evaluate']);
    expect(k0.LoyaltyInfo[0]?.Details[0]).toMatchObject({ PreviousPoints: 9, NewPoints: 12 });
  });
});
