import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBasket } from '../../src/baskets/basket.parse.js';
import {
  StoredBasketError,
  decodeStoredBasket,
  encodeStoredBasket,
} from '../../src/baskets/stored-basket.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';

const body = {
  Timestamp: '2026-03-02T16:59:00+01:00',
  HasDiscounts: false,
  CurrencyISO: 'EUR',
  Positions: [
    {
      PositionId: 2,
      ProductId: '1001',
      Unit: 0,
      Amount: 3,
      CurrentGrossPrice: 2.45,
      OrderTime: '2026-03-02T16:50:00+01:00',
    },
    { PositionId: 1, ProductId: '2002', Unit: 1, Amount: 0.355, CurrentGrossPrice: 12.9, HasDiscounts: true },
    { PositionId: 3, Unit: 0, Amount: 1, RegularGrossPrice: 0.1 },
  ],
};

describe('the parsed basket stored at the upload (version 1)', () => {
  it('reads back exactly what the upload parsed, amounts as exact decimals', () => {
    const parsed = parseBasket(body, 'EUR', 'Europe/Berlin');
    const stored = JSON.parse(JSON.stringify(encodeStoredBasket(parsed))) as unknown;
    const decoded = decodeStoredBasket(stored);
    expect(decoded).toEqual({
      timestamp: parsed.timestamp,
      hasDiscounts: parsed.hasDiscounts,
      positions: parsed.positions.map(({ productName: _name, ...p }) => p),
    });
    expect(decoded?.positions.map((p) => p.amount)).toEqual([
      { units: 355n, scale: 3 },
      { units: 3n, scale: 0 },
      { units: 1n, scale: 0 },
    ]);
  });

  it('a row without a stored basket (uploaded before) decodes to null', () => {
    expect(decodeStoredBasket(undefined)).toBeNull();
    expect(decodeStoredBasket(null)).toBeNull();
  });

  it('refuses an unknown version and a malformed position instead of guessing', () => {
    expect(() => decodeStoredBasket({ v: 2, t: [0, 0], hasDiscounts: false, positions: [] })).toThrow(
      StoredBasketError,
    );
    const good = encodeStoredBasket(parseBasket(body, 'EUR', 'Europe/Berlin'));
    const badAmount = { ...good, positions: [[1, null, 0, 'x', 1, 100, 100, 0, null, null]] };
    expect(() => decodeStoredBasket(badAmount)).toThrow(/Amount/);
    const badUnit = { ...good, positions: [[1, null, 2, '1', 1, 100, 100, 0, null, null]] };
    expect(() => decodeStoredBasket(badUnit)).toThrow(/unit/);
    expect(() => decodeStoredBasket({ ...good, t: ['now', 0] })).toThrow(/timestamp/);
  });
});

describe.each(databases)('grant and return read the stored parsed basket on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());

  async function shop() {
    const term = await setupTerminal(t);
    const u = encodeURIComponent(term.serviceUserName);
    const scheme = await t.admin('POST', `/merchants/${u}/loyaltySchemes`, {
      name: 'Points',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
      reward: null,
    });
    expect(scheme.statusCode, scheme.body).toBe(201);
    const profile = await t.admin('POST', `/merchants/${u}/profiles`, { fullName: 'Anna Berg' });
    const profileId = (profile.json() as { id: number }).id;
    const cardId = `card-${term.trackingUnitId}`;
    const link = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: cardId, tokenType: 0 });
    expect(link.statusCode, link.body).toBe(200);
    const sell = async (basketId: string) => {
      const res = await term.pos('POST', `/baskets/${basketId}`, {
        body,
        query: { consumerIdentToken: cardId },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    const grant = async (basketId: string) => {
      const res = await term.pos('POST', `/baskets/${basketId}/grant`, { sign: basketId });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { LoyaltyInfo: { Details: { NewPoints: number }[] }[] };
    };
    const giveBack = async (basketId: string) => {
      const res = await term.pos('POST', `/baskets/${basketId}/return`, {
        body: { ReturnId: 'R1', Positions: [{ PositionId: 2, Amount: 3 }] },
        sign: `${basketId}R1`,
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { LoyaltyInfo: { Details: { PreviousPoints: number; NewPoints: number }[] }[] };
    };
    return { term, sell, grant, giveBack };
  }

  it('a basket whose stored body no longer validates is still granted and returned as uploaded', async () => {
    const { term, sell, grant, giveBack } = await shop();
    await sell('B1');
    // The body is only kept as the till sent it; grant and return must not read it again.
    await sql`UPDATE baskets SET body = '{"Timestamp": 12}'::json
      WHERE tracking_unit_id = ${term.trackingUnitId} AND basket_id = 'B1'`.execute(t.database.db);
    // 3 x 2.45 + 0.355 kg x 12.90 (4.58) + 0.10 = 12.03: 12 points.
    const granted = await grant('B1');
    expect(granted.LoyaltyInfo[0]?.Details[0]?.NewPoints).toBe(12);
    // Position 2 is 7.35 of 12.03: floor(12 x 735 / 1203) = 7 points back.
    const returned = await giveBack('B1');
    expect(returned.LoyaltyInfo[0]?.Details[0]).toMatchObject({ PreviousPoints: 12, NewPoints: 5 });
  });

  it('a basket uploaded before the parsed basket was stored is read from its body', async () => {
    const { term, sell, grant, giveBack } = await shop();
    await sell('B2');
    await sql`UPDATE baskets SET result = (result::jsonb - 'basket')::json
      WHERE tracking_unit_id = ${term.trackingUnitId} AND basket_id = 'B2'`.execute(t.database.db);
    const granted = await grant('B2');
    expect(granted.LoyaltyInfo[0]?.Details[0]?.NewPoints).toBe(12);
    const returned = await giveBack('B2');
    expect(returned.LoyaltyInfo[0]?.Details[0]).toMatchObject({ PreviousPoints: 12, NewPoints: 5 });
  });
});
