import { describe, expect, it } from 'vitest';
import { at, basket, campaign, consumer, pos, rewardsOf, run, scheme } from './fixtures.js';

/** Every worked example of the reward rules (docs/decisions.md, "Worked examples"), one test each. */
describe('worked examples of the reward rules', () => {
  it('product 20% on PLU A, A: 3 x 2.45 -> one reward 1.47 on A', () => {
    const r = run(
      [
        campaign({
          id: 7,
          type: 'product',
          discount: { kind: 'percent', bp: 2000 },
          products: [{ plu: 'A' }],
        }),
      ],
      basket([pos(1, 'A', 245, 3)]),
    );
    expect(r.rewards).toEqual([
      {
        rewardType: 1,
        productId: 'A',
        grossRewardMinor: 147,
        positionId: 1,
        couponId: 7,
        name: 'Campaign 7',
        source: 'campaign',
        campaignVersion: 1,
      },
    ]);
  });

  it('product price 1.99 on A, A: 2 x 2.50 -> 1.02 (0.51 per unit)', () => {
    const r = run(
      [
        campaign({
          id: 1,
          type: 'product',
          discount: { kind: 'price', minor: 199 },
          products: [{ plu: 'A' }],
        }),
      ],
      basket([pos(1, 'A', 250, 2)]),
    );
    expect(rewardsOf(r)).toEqual([[1, 102]]);
  });

  it('combination amount 2.00 on A + B, A 5.00 and B 3.00 -> 1.25 on A, 0.75 on B, same CouponId', () => {
    const r = run(
      [
        campaign({
          id: 3,
          type: 'combination',
          discount: { kind: 'amount', minor: 200 },
          combination: [
            { selector: { plu: 'A' }, quantity: 1 },
            { selector: { plu: 'B' }, quantity: 1 },
          ],
        }),
      ],
      basket([pos(1, 'A', 500), pos(2, 'B', 300)]),
    );
    expect(rewardsOf(r)).toEqual([
      [1, 125],
      [2, 75],
    ]);
    expect(r.rewards.map((x) => x.couponId)).toEqual([3, 3]);
  });

  it('combination amount 0.10 on A + B + C at 1.00 each -> 0.04, 0.03, 0.03 (leftover cent to the lower PositionId)', () => {
    const r = run(
      [
        campaign({
          id: 4,
          type: 'combination',
          discount: { kind: 'amount', minor: 10 },
          combination: [
            { selector: { plu: 'A' }, quantity: 1 },
            { selector: { plu: 'B' }, quantity: 1 },
            { selector: { plu: 'C' }, quantity: 1 },
          ],
        }),
      ],
      basket([pos(3, 'C', 100), pos(1, 'A', 100), pos(2, 'B', 100)]),
    );
    expect(rewardsOf(r)).toEqual([
      [1, 4],
      [2, 3],
      [3, 3],
    ]);
  });

  it('quantity buy 3 get 1 50% on group G, units 2.00 2.00 1.50 1.50 1.00 -> 0.75 on a 1.50 position; the fifth unit starts no group', () => {
    const g = { groupIds: ['G'] };
    const r = run(
      [
        campaign({
          id: 5,
          type: 'quantity',
          discount: { kind: 'percent', bp: 5000 },
          products: [{ group: 'G' }],
          buy: 3,
          get: 1,
        }),
      ],
      basket([
        pos(1, 'X', 200, 2, g),
        pos(2, 'Y', 150, 1, g),
        pos(3, 'Z', 150, 1, g),
        pos(4, 'W', 100, 1, g),
      ]),
    );
    expect(rewardsOf(r)).toEqual([[3, 75]]);
    expect(r.couponUsages).toEqual([{ campaignId: 5, count: 1 }]);
  });

  it('bill 10% from 30.00 with product 20% on A; A 10.00 (2.00 off), other 22.00 -> bill reward 3.00 on the 30.00 left', () => {
    const r = run(
      [
        campaign({
          id: 1,
          type: 'product',
          discount: { kind: 'percent', bp: 2000 },
          products: [{ plu: 'A' }],
        }),
        campaign({ id: 2, type: 'bill', discount: { kind: 'percent', bp: 1000 }, minTotalMinor: 3000 }),
      ],
      basket([pos(1, 'A', 1000), pos(2, 'O', 2200)]),
    );
    expect(r.rewards.map((x) => [x.rewardType, x.productId, x.positionId, x.grossRewardMinor])).toEqual([
      [1, 'A', 1, 200],
      [2, '', 0, 300],
    ]);
  });

  it('happy hour 15:00-17:00 Mon-Fri, OrderTime 2026-03-02T16:59:00-05:00 (a Monday) -> inside', () => {
    const happyHour = campaign({
      id: 9,
      type: 'product',
      discount: { kind: 'percent', bp: 5000 },
      products: [{ plu: 'BEER' }],
      schedule: [{ days: [1, 2, 3, 4, 5], fromMinute: 15 * 60, toMinute: 17 * 60 }],
    });
    // The basket Timestamp is later (outside), the position's OrderTime decides.
    const b = basket([pos(1, 'BEER', 400, 1, { orderTime: at('2026-03-02T16:59:00-05:00') })], {
      timestamp: at('2026-03-02T19:30:00-05:00'),
    });
    expect(rewardsOf(run([happyHour], b))).toEqual([[1, 200]]);
  });

  it('scheme 1 point per 1.00, bill reward 5.00 at 50; committed 48, basket 12.40 -> earns 12, redeems 5.00, Previous 48 New 10 InScheme 50 value 5.00 position 0', () => {
    const s = scheme({
      id: 11,
      name: 'Coffee card',
      earn: [{ per: 'amount', amountMinor: 100, points: 1 }],
      reward: { threshold: 50, type: 'bill', discount: { kind: 'amount', minor: 500 } },
    });
    const r = run([], basket([pos(1, 'A', 1240)], { consumerKnown: true }), {
      schemes: [s],
      consumer: consumer({}, { 11: 48 }),
    });
    expect(r.loyalty).toEqual([
      {
        schemeId: 11,
        name: 'Coffee card',
        previousPoints: 48,
        earnedPoints: 12,
        spentPoints: 50,
        newPoints: 10,
        pointsInScheme: 50,
        grossRewardMinor: 500,
        positionId: 0,
        schemeVersion: 1,
        earnedPointsExpireAtMs: null,
      },
    ]);
    expect(r.rewards).toEqual([
      {
        rewardType: 2,
        productId: '',
        grossRewardMinor: 500,
        positionId: 0,
        couponId: 11,
        name: 'Coffee card',
        source: 'scheme',
        campaignVersion: 1,
      },
    ]);
  });

  it('scheme example with campaigns: the basket counts after campaign rewards (13.78 - 1.38 = 12.40 earns 12)', () => {
    const s = scheme({
      id: 11,
      earn: [{ per: 'amount', amountMinor: 100, points: 1 }],
      reward: { threshold: 50, type: 'bill', discount: { kind: 'amount', minor: 500 } },
    });
    const r = run(
      [
        campaign({
          id: 1,
          type: 'product',
          discount: { kind: 'amount', minor: 138 },
          products: [{ plu: 'A' }],
        }),
      ],
      basket([pos(1, 'A', 1378)], { consumerKnown: true }),
      { schemes: [s], consumer: consumer({}, { 11: 48 }) },
    );
    expect(r.loyalty[0]).toMatchObject({
      previousPoints: 48,
      earnedPoints: 12,
      newPoints: 10,
      grossRewardMinor: 500,
    });
    expect(rewardsOf(r)).toEqual([
      [1, 138],
      [0, 500],
    ]);
  });
});
