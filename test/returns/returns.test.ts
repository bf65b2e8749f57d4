import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/ledger-verify.store.js';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import type { StoredReturn } from '../../src/baskets/basket-return.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';

interface LoyaltyDetail {
  PreviousPoints: number;
  NewPoints: number;
  PointsInScheme: number;
  GrossRewardValue: number;
  RewardTriggeringPositionId: number;
}
interface ReturnOut {
  ReturnId: string;
  RefundedRewardValue: number;
  LoyaltyInfo: { LoyaltyId: number; Name: string; Details: LoyaltyDetail[] }[];
}
interface GrantOut {
  Rewards: { GrossRewardValue: number; RewardTriggeringPositionId: number; CouponId: number }[];
  LoyaltyInfo: { LoyaltyId: number; Details: LoyaltyDetail[] }[];
}

type Position = {
  PositionId: number;
  ProductId: string;
  Unit: number;
  Amount: number;
  CurrentGrossPrice: number;
};
const pos = (PositionId: number, ProductId: string, Amount: number, CurrentGrossPrice: number, Unit = 0) => ({
  PositionId,
  ProductId,
  Unit,
  Amount,
  CurrentGrossPrice,
});
const basketBody = (positions: Position[], hasDiscounts = false) => ({
  Timestamp: '2026-03-02T16:59:00+01:00',
  HasDiscounts: hasDiscounts,
  CurrencyISO: 'EUR',
  Positions: positions,
});

/** 1 point per 1.00 spent, no reward. */
const earnOnly = { name: 'Points', earn: [{ per: 'amount', amount: 1, points: 1 }], reward: null };
/** 1 point per 1.00 spent; 10 points buy one 1001 free. */
const coffeeCard = {
  name: 'Coffee card',
  earn: [{ per: 'amount', amount: 1, points: 1 }],
  reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
};

/** Cents of a major-unit amount from the wire (comparison only). */
const cents = (major: number) => Math.round(major * 100);

describe.each(databases)('basket returns on %s', (kind) => {
  let t: TestApp;
  let n = 0;
  const id = (prefix: string) => `${prefix}-${(n += 1)}`;

  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());
  // Every return leaves the points history balanced: movements, lots, grants and returns agree.
  afterEach(async () => {
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
    expect((await verifyLedger(t.database.db)).violations).toEqual([]);
  });

  /** A merchant with a terminal, the given rules, and a profile with a linked customer card. */
  async function shop(rules: { schemes?: object[]; campaigns?: object[] } = {}) {
    const term = await setupTerminal(t);
    const u = encodeURIComponent(term.serviceUserName);
    const schemeIds: number[] = [];
    for (const s of rules.schemes ?? []) {
      const res = await t.admin('POST', `/merchants/${u}/loyaltySchemes`, s);
      expect(res.statusCode, res.body).toBe(201);
      schemeIds.push((res.json() as { id: number }).id);
    }
    const campaignIds: number[] = [];
    for (const c of rules.campaigns ?? []) {
      const res = await t.admin('POST', `/merchants/${u}/campaigns`, c);
      expect(res.statusCode, res.body).toBe(201);
      campaignIds.push((res.json() as { id: number }).id);
    }
    const profile = await t.admin('POST', `/merchants/${u}/profiles`, { fullName: 'Anna Berg' });
    expect(profile.statusCode).toBe(201);
    const profileId = (profile.json() as { id: number }).id;
    const cardId = id('card');
    const link = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: cardId, tokenType: 0 });
    expect(link.statusCode).toBe(200);

    const upload = async (basketId: string, positions: Position[], consumer = true, hasDiscounts = false) => {
      const res = await term.pos('POST', `/baskets/${basketId}`, {
        body: basketBody(positions, hasDiscounts),
        ...(consumer ? { query: { consumerIdentToken: cardId } } : {}),
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as GrantOut;
    };
    const sell = async (
      positions: Position[],
      options: { consumer?: boolean; redeemedInPos?: boolean; hasDiscounts?: boolean } = {},
    ) => {
      const basketId = id('B');
      await upload(basketId, positions, options.consumer !== false, options.hasDiscounts === true);
      const res = await term.pos('POST', `/baskets/${basketId}/grant`, {
        sign: basketId,
        query: { redeemedInPos: String(options.redeemedInPos !== false) },
      });
      expect(res.statusCode, res.body).toBe(200);
      return { basketId, grant: res.json() as GrantOut };
    };
    const giveBack = (
      basketId: string,
      returnId: string,
      positions: { PositionId: number; Amount: number }[],
    ) =>
      term.pos('POST', `/baskets/${basketId}/return`, {
        body: { ReturnId: returnId, Positions: positions },
        sign: `${basketId}${returnId}`,
      });
    const points = async (schemeId = schemeIds[0]) => {
      const rows = await t.database.db
        .selectFrom('points_lots')
        .select('remaining')
        .where('profile_id', '=', profileId)
        .where('scheme_id', '=', schemeId ?? -1)
        .execute();
      return rows.reduce((sum, r) => sum + r.remaining, 0);
    };
    return { term, schemeIds, campaignIds, profileId, cardId, upload, sell, giveBack, points };
  }

  const ok = (res: LightMyRequestResponse): ReturnOut => {
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as ReturnOut;
  };
  const detail = (out: ReturnOut): LoyaltyDetail => {
    const d = out.LoyaltyInfo[0]?.Details[0];
    if (!d) throw new Error(`no LoyaltyInfo in ${JSON.stringify(out)}`);
    return d;
  };

  // 5.00 + 12.30 = 17.30: 17 points.
  const twoLines = () => [pos(1, '1001', 2, 2.5), pos(2, '2002', 3, 4.1)];

  it('a full return takes back all points earned on the basket', async () => {
    const s = await shop({ schemes: [earnOnly] });
    const { basketId } = await s.sell(twoLines());
    expect(await s.points()).toBe(17);
    const out = ok(
      await s.giveBack(basketId, 'R1', [
        { PositionId: 1, Amount: 2 },
        { PositionId: 2, Amount: 3 },
      ]),
    );
    expect(out).toEqual({
      ReturnId: 'R1',
      RefundedRewardValue: 0,
      LoyaltyInfo: [
        {
          LoyaltyId: s.schemeIds[0],
          Name: 'Points',
          Details: [
            {
              PreviousPoints: 17,
              NewPoints: 0,
              PointsInScheme: 0,
              GrossRewardValue: 0,
              RewardTriggeringPositionId: 0,
            },
          ],
        },
      ],
    });
    expect(await s.points()).toBe(0);
  });

  it('numbers the till sends as text are read the same at upload, grant and return', async () => {
    const s = await shop({ schemes: [earnOnly] });
    const basketId = id('B');
    // Stored as sent (field names as in the documents); grant and return read it through the
    // upload's validation again, so "2" is PositionId 2 and "3" sold pieces there too.
    const raw = JSON.stringify({
      ...basketBody([]),
      Positions: [
        { PositionId: '1', ProductId: '1001', Unit: '0', Amount: '2', CurrentGrossPrice: '2.50' },
        { PositionId: '2', ProductId: '2002', Unit: '0', Amount: '3', CurrentGrossPrice: '4.10' },
      ],
    });
    const up = await s.term.pos('POST', `/baskets/${basketId}`, {
      raw,
      query: { consumerIdentToken: s.cardId },
    });
    expect(up.statusCode, up.body).toBe(200);
    const granted = await s.term.pos('POST', `/baskets/${basketId}/grant`, { sign: basketId });
    expect(granted.statusCode, granted.body).toBe(200);
    expect(await s.points()).toBe(17);
    const out = ok(await s.giveBack(basketId, 'R1', [{ PositionId: 2, Amount: 3 }]));
    // 12.30 of 17.30 returned: floor(17 x 12.30 / 17.30) = 12 points back.
    expect(detail(out).NewPoints).toBe(5);
    expect(await s.points()).toBe(5);
  });

  it('a partial return takes back floor(earned x returned value / basket value)', async () => {
    const s = await shop({ schemes: [earnOnly] });
    const { basketId } = await s.sell(twoLines());
    // One of three 4.10 units: floor(17 * 410 / 1730) = 4.
    const out = ok(await s.giveBack(basketId, 'R1', [{ PositionId: 2, Amount: 1 }]));
    expect(detail(out)).toMatchObject({ PreviousPoints: 17, NewPoints: 13 });
    expect(await s.points()).toBe(13);
  });

  it('partial returns add up exactly to the full return, for points and for the refunded reward value', async () => {
    // 10% on 2002 (a product reward) and 5% off the bill: both are spread back exactly.
    const s = await shop({
      schemes: [earnOnly],
      campaigns: [
        { name: 'Ten off', type: 'product', discount: { percent: 10 }, products: [{ plu: '2002' }] },
        { name: 'Bill', type: 'bill', discount: { percent: 5 } },
      ],
    });
    const positions = [pos(1, '1001', 2, 2.5), pos(2, '2002', 3, 4.15), pos(3, '3003', 0.245, 19.9, 1)];
    const { basketId, grant } = await s.sell(positions);
    const rewardsCents = grant.Rewards.reduce((sum, r) => sum + cents(r.GrossRewardValue), 0);
    expect(grant.Rewards.length).toBe(2);
    const earned = await s.points();
    expect(earned).toBeGreaterThan(0);

    const returns = [
      [{ PositionId: 2, Amount: 1 }],
      [
        { PositionId: 2, Amount: 1 },
        { PositionId: 3, Amount: 0.1 },
      ],
      [{ PositionId: 1, Amount: 1 }],
      [
        { PositionId: 1, Amount: 1 },
        { PositionId: 2, Amount: 1 },
        { PositionId: 3, Amount: 0.145 },
      ],
    ];
    let refunded = 0;
    let before = earned;
    for (const [i, r] of returns.entries()) {
      const out = ok(await s.giveBack(basketId, `R${i}`, r));
      refunded += cents(out.RefundedRewardValue);
      const d = detail(out);
      expect(d.PreviousPoints).toBe(before);
      expect(d.NewPoints).toBeLessThanOrEqual(before);
      before = d.NewPoints;
    }
    expect(refunded).toBe(rewardsCents);
    expect(before).toBe(0);
    expect(await s.points()).toBe(0);
  });

  it('a scheme product reward gives its points back once the rewarded position is fully returned', async () => {
    const s = await shop({ schemes: [coffeeCard] });
    // 12.30: 12 points, no 1001 in the basket, so nothing redeemed.
    await s.sell([pos(1, '2002', 3, 4.1)]);
    expect(await s.points()).toBe(12);
    // 2 x 1001 at 2.50 and 4.10: one 1001 free (10 points), 9.10 earns 9 -> 11.
    const { basketId, grant } = await s.sell([pos(1, '1001', 2, 2.5), pos(2, '2002', 1, 4.1)]);
    expect(grant.LoyaltyInfo[0]?.Details[0]).toMatchObject({
      PreviousPoints: 12,
      NewPoints: 11,
      GrossRewardValue: 2.5,
      RewardTriggeringPositionId: 1,
    });
    // Value 2.50 (5.00 less the free unit) + 4.10 = 6.60. One of two units of position 1:
    // returned value 1.25, floor(9 * 125 / 660) = 1 taken back; the reward stays.
    const first = ok(await s.giveBack(basketId, 'R1', [{ PositionId: 1, Amount: 1 }]));
    expect(first.RefundedRewardValue).toBe(1.25);
    expect(detail(first)).toEqual({
      PreviousPoints: 11,
      NewPoints: 10,
      PointsInScheme: 10,
      GrossRewardValue: 0,
      RewardTriggeringPositionId: 0,
    });
    // The second unit completes the position: 10 points back, floor(9 * 250 / 660) = 3 due in all.
    const second = ok(await s.giveBack(basketId, 'R2', [{ PositionId: 1, Amount: 1 }]));
    expect(second.RefundedRewardValue).toBe(1.25);
    expect(detail(second)).toEqual({
      PreviousPoints: 10,
      NewPoints: 18,
      PointsInScheme: 10,
      GrossRewardValue: 2.5,
      RewardTriggeringPositionId: 1,
    });
    // Returning the rest takes back the other 6 earned points; the reward is not given back twice.
    const third = ok(await s.giveBack(basketId, 'R3', [{ PositionId: 2, Amount: 1 }]));
    expect(third.RefundedRewardValue).toBe(0);
    expect(detail(third)).toMatchObject({ PreviousPoints: 18, NewPoints: 12, GrossRewardValue: 0 });
    expect(await s.points()).toBe(12);
  });

  it('a scheme bill reward gives its points back only when the whole basket is returned', async () => {
    const s = await shop({
      schemes: [
        {
          name: 'Bill card',
          earn: [{ per: 'amount', amount: 1, points: 1 }],
          reward: { threshold: 10, type: 'bill', discount: { amount: 2 } },
        },
      ],
    });
    // HasDiscounts: 12 points earned, nothing redeemed.
    await s.sell([pos(1, '2002', 3, 4.1)], { hasDiscounts: true });
    // 12 committed + 10 earned: 2.00 off the bill, 10 spent -> 12.
    const { basketId, grant } = await s.sell([pos(1, '1001', 2, 2.5), pos(2, '2002', 1, 5)]);
    expect(grant.LoyaltyInfo[0]?.Details[0]).toMatchObject({ NewPoints: 12, GrossRewardValue: 2 });
    const part = ok(await s.giveBack(basketId, 'R1', [{ PositionId: 2, Amount: 1 }]));
    expect(detail(part)).toMatchObject({ PreviousPoints: 12, NewPoints: 7, GrossRewardValue: 0 });
    expect(part.RefundedRewardValue).toBe(1);
    const rest = ok(await s.giveBack(basketId, 'R2', [{ PositionId: 1, Amount: 2 }]));
    expect(detail(rest)).toEqual({
      PreviousPoints: 7,
      NewPoints: 12,
      PointsInScheme: 10,
      GrossRewardValue: 2,
      RewardTriggeringPositionId: 0,
    });
    expect(rest.RefundedRewardValue).toBe(1);
  });

  it('the same ReturnId twice books once and answers the stored response; with other positions it is 400 / 11014', async () => {
    const s = await shop({ schemes: [earnOnly] });
    const { basketId } = await s.sell(twoLines());
    const first = await s.giveBack(basketId, 'R1', [{ PositionId: 2, Amount: 1 }]);
    const second = await s.giveBack(basketId, 'R1', [{ PositionId: 2, Amount: 1.0 }]);
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(await s.points()).toBe(13);
    const reused = await s.giveBack(basketId, 'R1', [{ PositionId: 2, Amount: 2 }]);
    expect(reused.statusCode).toBe(400);
    expect(reused.json()).toMatchObject({ ErrorId: 11014 });
    const rows = await t.database.db
      .selectFrom('basket_returns')
      .selectAll()
      .where('basket_id', '=', basketId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(await s.points()).toBe(13);
  });

  it('returning more than was sold (with earlier returns) is 400 / 11012 and books nothing', async () => {
    const s = await shop({ schemes: [earnOnly] });
    const { basketId } = await s.sell(twoLines());
    const over = await s.giveBack(basketId, 'R1', [{ PositionId: 2, Amount: 3.5 }]);
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ ErrorId: 11012 });
    ok(await s.giveBack(basketId, 'R2', [{ PositionId: 2, Amount: 2 }]));
    const points = await s.points();
    const later = await s.giveBack(basketId, 'R3', [
      { PositionId: 1, Amount: 1 },
      { PositionId: 2, Amount: 1.001 },
    ]);
    expect(later.statusCode).toBe(400);
    expect(later.json()).toMatchObject({ ErrorId: 11012 });
    expect(await s.points()).toBe(points);
    const ids = await t.database.db
      .selectFrom('basket_returns')
      .select('return_id')
      .where('basket_id', '=', basketId)
      .execute();
    expect(ids.map((r) => r.return_id)).toEqual(['R2']);
  });

  it('an unknown, repeated or non-positive position is 400 / 1000', async () => {
    const s = await shop();
    const { basketId } = await s.sell(twoLines());
    for (const positions of [
      [{ PositionId: 9, Amount: 1 }],
      [
        { PositionId: 1, Amount: 1 },
        { PositionId: 1, Amount: 1 },
      ],
      [{ PositionId: 1, Amount: 0 }],
      [{ PositionId: 1, Amount: -1 }],
      [],
    ]) {
      const res = await s.giveBack(basketId, 'R1', positions);
      expect(res.statusCode, JSON.stringify(positions)).toBe(400);
      expect(res.json()).toMatchObject({ ErrorId: 1000 });
    }
  });

  it('a basket that is not granted is 400 / 11013', async () => {
    const s = await shop();
    await s.upload('open', twoLines());
    const res = await s.giveBack('open', 'R1', [{ PositionId: 1, Amount: 1 }]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 11013 });
  });

  it("an unknown basket, or another terminal's, is 404 / 11011", async () => {
    const s = await shop();
    const unknown = await s.giveBack('never-uploaded', 'R1', [{ PositionId: 1, Amount: 1 }]);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ ErrorId: 11011 });
    const { basketId } = await s.sell(twoLines());
    const other = await setupTerminal(t);
    const foreign = await other.pos('POST', `/baskets/${basketId}/return`, {
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 1 }] },
      sign: `${basketId}R1`,
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ ErrorId: 11011 });
  });

  it('a wrong or missing SecurityToken is 401 / 1003 and books nothing', async () => {
    const s = await shop({ schemes: [earnOnly] });
    const { basketId } = await s.sell(twoLines());
    const body = { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 2 }] };
    const wrong = await s.term.pos('POST', `/baskets/${basketId}/return`, { body, sign: basketId });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ ErrorId: 1003 });
    const missing = await s.term.pos('POST', `/baskets/${basketId}/return`, { body });
    expect(missing.statusCode).toBe(401);
    expect(await s.points()).toBe(17);
  });

  it('XML in and out: a DataContract-style return answers a ReturnResponse document', async () => {
    const s = await shop({ schemes: [earnOnly] });
    const { basketId } = await s.sell(twoLines());
    const xml = `<?xml version="1.0" encoding="utf-8"?>
<BasketReturn xmlns="http://schemas.datacontract.org/2004/07/Till">
  <Positions><ReturnPosition><Amount>1</Amount><PositionId>2</PositionId></ReturnPosition></Positions>
  <ReturnId>R%2F1</ReturnId>
</BasketReturn>`;
    const res = await s.term.pos('POST', `/baskets/${basketId}/return`, {
      raw: xml,
      format: 'xml',
      sign: `${basketId}R/1`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain(
      '<ReturnResponse><ReturnId>R/1</ReturnId><RefundedRewardValue>0</RefundedRewardValue>',
    );
    expect(res.body).toContain('<PreviousPoints>17</PreviousPoints><NewPoints>13</NewPoints>');
    const err = await s.term.pos('POST', `/baskets/${basketId}/return`, {
      raw: xml.replace('<Amount>1</Amount>', '<Amount>5</Amount>').replace('R%2F1', 'R2'),
      format: 'xml',
      sign: `${basketId}R2`,
    });
    expect(err.statusCode).toBe(400);
    expect(err.body).toContain('<ErrorId>11012</ErrorId>');
  });

  it('a full return releases the usage, so a usage-limited campaign applies again; a partial one does not', async () => {
    const s = await shop({
      campaigns: [
        {
          name: 'Once per customer',
          type: 'product',
          discount: { percent: 10 },
          products: [{ plu: '2002' }],
          usageLimitPerConsumer: 1,
        },
      ],
    });
    const { basketId, grant } = await s.sell(twoLines());
    expect(grant.Rewards).toHaveLength(1);
    expect((await s.upload(id('B'), twoLines())).Rewards).toHaveLength(0);
    ok(await s.giveBack(basketId, 'R1', [{ PositionId: 2, Amount: 2 }]));
    expect((await s.upload(id('B'), twoLines())).Rewards).toHaveLength(0);
    const out = ok(await s.giveBack(basketId, 'R2', [{ PositionId: 2, Amount: 1 }]));
    expect(out.LoyaltyInfo).toEqual([]);
    expect((await s.upload(id('B'), twoLines())).Rewards).toHaveLength(1);
    const row = await t.database.db
      .selectFrom('campaign_usages')
      .select(['used', 'released'])
      .where('basket_id', '=', basketId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ used: 1, released: 1 });
  });

  it('redeemedInPos=false: a return takes back only earned points and refunds no reward value', async () => {
    const s = await shop({ schemes: [coffeeCard] });
    await s.sell([pos(1, '2002', 3, 4.1)]);
    const { basketId, grant } = await s.sell([pos(1, '1001', 2, 2.5), pos(2, '2002', 1, 4.1)], {
      redeemedInPos: false,
    });
    expect(grant.Rewards).toEqual([]);
    expect(await s.points()).toBe(21);
    const out = ok(
      await s.giveBack(basketId, 'R1', [
        { PositionId: 1, Amount: 2 },
        { PositionId: 2, Amount: 1 },
      ]),
    );
    expect(out.RefundedRewardValue).toBe(0);
    expect(detail(out)).toMatchObject({ PreviousPoints: 21, NewPoints: 12, GrossRewardValue: 0 });
  });

  it('a basket without consumer: the return answers the refunded reward value and no LoyaltyInfo', async () => {
    const s = await shop({
      schemes: [earnOnly],
      campaigns: [
        { name: 'Ten off', type: 'product', discount: { percent: 10 }, products: [{ plu: '2002' }] },
      ],
    });
    const { basketId, grant } = await s.sell(twoLines(), { consumer: false });
    expect(grant.Rewards[0]?.GrossRewardValue).toBe(1.23);
    const out = ok(await s.giveBack(basketId, 'R1', [{ PositionId: 2, Amount: 1 }]));
    expect(out).toEqual({ ReturnId: 'R1', RefundedRewardValue: 0.41, LoyaltyInfo: [] });
  });

  it('points are never taken below zero: the shortfall is recorded and written off', async () => {
    const s = await shop({ schemes: [coffeeCard] });
    // 12 points, then a basket that spends 10 of them on a free 1001 (earning 2 on 2.50 + ... ).
    const { basketId } = await s.sell([pos(1, '2002', 3, 4.1)]);
    await s.sell([pos(1, '1001', 1, 2.5)]);
    // 12 - 10 + 2 = 4 left; the first basket's 12 cannot all come back.
    expect(await s.points()).toBe(4);
    const out = ok(await s.giveBack(basketId, 'R1', [{ PositionId: 1, Amount: 3 }]));
    expect(detail(out)).toMatchObject({ PreviousPoints: 4, NewPoints: 0 });
    const row = await t.database.db
      .selectFrom('basket_returns')
      .select('response')
      .where('basket_id', '=', basketId)
      .executeTakeFirstOrThrow();
    expect((row.response as StoredReturn).booking.loyalty).toEqual([
      { schemeId: s.schemeIds[0], due: 12, taken: 4, shortfall: 8, givenBack: 0 },
    ]);
  });
  it('concurrent returns of one basket never return more than was sold in all', async () => {
    const s = await shop({ schemes: [earnOnly] });
    const { basketId } = await s.sell(twoLines());
    const results = await Promise.all(
      ['A', 'B', 'C'].map((r) => s.giveBack(basketId, r, [{ PositionId: 2, Amount: 2 }])),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400, 400]);
    // Two of three 4.10 units: floor(17 * 820 / 1730) = 8 taken back, once.
    expect(await s.points()).toBe(9);
    const again = await Promise.all(
      [1, 2].map(() => s.giveBack(basketId, 'D', [{ PositionId: 1, Amount: 1 }])),
    );
    expect(again.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(again[0]?.body).toBe(again[1]?.body);
  });

  it('points earned with an unlinked card are taken back from the profile the card was linked to since', async () => {
    const s = await shop({ schemes: [earnOnly] });
    const loose = id('loose');
    expect((await s.term.pos('POST', `/tokens/${loose}`)).statusCode).toBe(200);
    const basketId = id('B');
    await s.term.pos('POST', `/baskets/${basketId}`, {
      body: basketBody(twoLines()),
      query: { consumerIdentToken: loose },
    });
    expect((await s.term.pos('POST', `/baskets/${basketId}/grant`, { sign: basketId })).statusCode).toBe(200);
    expect((await t.admin('POST', `/profiles/${s.profileId}/tokens`, { tokenId: loose })).statusCode).toBe(
      200,
    );
    expect(await s.points()).toBe(17);
    const out = ok(
      await s.giveBack(basketId, 'R1', [
        { PositionId: 1, Amount: 2 },
        { PositionId: 2, Amount: 3 },
      ]),
    );
    expect(detail(out)).toMatchObject({ PreviousPoints: 17, NewPoints: 0 });
    expect(await s.points()).toBe(0);
  });
});
