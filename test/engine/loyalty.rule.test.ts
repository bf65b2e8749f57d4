import { describe, expect, it } from 'vitest';
import { basket, campaign, consumer, kg, pos, run, scheme, MONDAY_NOON } from './fixtures.js';
import type {
  Campaign,
  ConsumerState,
  EngineBasket,
  EnginePosition,
  LoyaltyScheme,
  SchemeReward,
} from '../../src/engine/types.js';

const perEuro = { per: 'amount', amountMinor: 100, points: 1 } as const;
const billFive: SchemeReward = { threshold: 50, type: 'bill', discount: { kind: 'amount', minor: 500 } };
const freeCoffee: SchemeReward = {
  threshold: 10,
  type: 'product',
  products: [{ plu: 'COFFEE' }],
  discount: { kind: 'percent', bp: 10000 },
};

describe('loyalty schemes', () => {
  it.each<{
    rule: string;
    s: Partial<LoyaltyScheme>;
    positions: EnginePosition[];
    b?: Partial<EngineBasket>;
    campaigns?: Campaign[];
    points?: number;
    expected: { earned: number; spent: number; value: number; position: number } | null;
  }>([
    {
      rule: 'per amount earns whole multiples of the amount on the whole basket',
      s: { earn: [perEuro] },
      positions: [pos(1, 'A', 199), pos(2, 'B', 100)],
      expected: { earned: 2, spent: 0, value: 0, position: 0 },
    },
    {
      rule: 'per amount earns on the gross after campaign rewards',
      s: { earn: [perEuro] },
      positions: [pos(1, 'A', 300)],
      campaigns: [campaign({ id: 1, type: 'bill', discount: { kind: 'amount', minor: 1 } })],
      expected: { earned: 2, spent: 0, value: 0, position: 0 },
    },
    {
      rule: 'positions with HasDiscounts and kg lines still earn per amount',
      s: { earn: [perEuro] },
      positions: [pos(1, 'A', 100, 1, { hasDiscounts: true }), kg(2, 'M', 1000, 250)],
      expected: { earned: 3, spent: 0, value: 0, position: 0 },
    },
    {
      rule: 'per unit earns per whole piece of a qualifying article, never on kg lines',
      s: { earn: [{ per: 'unit', products: [{ plu: 'COFFEE' }], points: 2 }] },
      positions: [pos(1, 'COFFEE', 250, 3), kg(2, 'COFFEE', 2000, 500), pos(3, 'TEA', 250, 1)],
      expected: { earned: 6, spent: 0, value: 0, position: 0 },
    },
    {
      rule: 'a basket with HasDiscounts earns points but redeems nothing',
      s: { earn: [perEuro], reward: billFive },
      positions: [pos(1, 'A', 1240)],
      b: { hasDiscounts: true },
      points: 48,
      expected: { earned: 12, spent: 0, value: 0, position: 0 },
    },
    {
      rule: 'the reward is not redeemed below the threshold',
      s: { earn: [perEuro], reward: billFive },
      positions: [pos(1, 'A', 1240)],
      points: 37,
      expected: { earned: 12, spent: 0, value: 0, position: 0 },
    },
    {
      rule: 'the reward is redeemed at most once per basket and spends exactly the threshold',
      s: { earn: [perEuro], reward: billFive },
      positions: [pos(1, 'A', 10000)],
      points: 100,
      expected: { earned: 100, spent: 50, value: 500, position: 0 },
    },
    {
      rule: 'a bill amount reward needs a bill left of at least its amount',
      s: { earn: [perEuro], reward: billFive },
      positions: [pos(1, 'A', 499)],
      points: 60,
      expected: { earned: 4, spent: 0, value: 0, position: 0 },
    },
    {
      rule: 'a bill reward applies to the bill left after campaign rewards',
      s: { reward: { threshold: 10, type: 'bill', discount: { kind: 'percent', bp: 1000 } } },
      positions: [pos(1, 'A', 1000)],
      campaigns: [campaign({ id: 1, type: 'bill', discount: { kind: 'amount', minor: 100 } })],
      points: 10,
      expected: { earned: 0, spent: 10, value: 90, position: 0 },
    },
    {
      rule: 'a product reward takes the most expensive qualifying unit',
      s: { reward: freeCoffee },
      positions: [pos(1, 'COFFEE', 250, 2), pos(2, 'COFFEE', 300, 1), pos(3, 'CAKE', 900, 1)],
      points: 10,
      expected: { earned: 0, spent: 10, value: 300, position: 2 },
    },
    {
      rule: 'a product reward takes no unit a campaign took',
      s: { reward: freeCoffee },
      positions: [pos(1, 'COFFEE', 250, 1), pos(2, 'COFFEE', 300, 1)],
      campaigns: [
        campaign({
          id: 1,
          type: 'product',
          discount: { kind: 'amount', minor: 10 },
          products: [{ plu: 'COFFEE' }],
          maxApplications: 1,
        }),
      ],
      points: 10,
      expected: { earned: 0, spent: 10, value: 250, position: 1 },
    },
    {
      rule: 'a product reward needs a qualifying unit in the basket, else no points are spent',
      s: { reward: freeCoffee },
      positions: [
        pos(1, 'CAKE', 250, 1),
        pos(2, 'COFFEE', 300, 1, { hasDiscounts: true }),
        kg(3, 'COFFEE', 300, 300),
      ],
      points: 25,
      expected: { earned: 0, spent: 0, value: 0, position: 0 },
    },
    {
      rule: 'a unit given free by the scheme still earns',
      s: { earn: [{ per: 'unit', products: [{ plu: 'COFFEE' }], points: 1 }], reward: freeCoffee },
      positions: [pos(1, 'COFFEE', 250, 1)],
      points: 9,
      expected: { earned: 1, spent: 10, value: 250, position: 1 },
    },
    {
      rule: 'a scheme not yet valid at the basket Timestamp is not touched',
      s: { earn: [perEuro], validFromMs: MONDAY_NOON.utcMs + 1 },
      positions: [pos(1, 'A', 1000)],
      expected: null,
    },
    {
      rule: 'a scheme validTo is exclusive',
      s: { earn: [perEuro], validToMs: MONDAY_NOON.utcMs },
      positions: [pos(1, 'A', 1000)],
      expected: null,
    },
    {
      rule: 'a scheme of other outlets is not touched',
      s: { earn: [perEuro], outletIds: [7] },
      positions: [pos(1, 'A', 1000)],
      expected: null,
    },
    {
      rule: 'a valid scheme is listed even when the basket earns nothing',
      s: { earn: [{ per: 'unit', products: [{ plu: 'COFFEE' }], points: 1 }] },
      positions: [pos(1, 'A', 1000)],
      expected: { earned: 0, spent: 0, value: 0, position: 0 },
    },
  ])('$rule', ({ s, positions, b, campaigns, points, expected }) => {
    const who: ConsumerState = consumer({}, { 1: points ?? 0 });
    const r = run(campaigns ?? [], basket(positions, { consumerKnown: true, ...b }), {
      schemes: [scheme({ id: 1, ...s })],
      consumer: who,
    });
    if (expected === null) {
      expect(r.loyalty).toEqual([]);
      return;
    }
    const line = r.loyalty[0];
    expect(r.loyalty).toHaveLength(1);
    expect(line).toMatchObject({
      previousPoints: points ?? 0,
      earnedPoints: expected.earned,
      spentPoints: expected.spent,
      newPoints: (points ?? 0) + expected.earned - expected.spent,
      grossRewardMinor: expected.value,
      positionId: expected.position,
    });
    const schemeRewards = r.rewards.filter((x) => x.source === 'scheme');
    expect(schemeRewards.map((x) => [x.positionId, x.grossRewardMinor])).toEqual(
      expected.value > 0 ? [[expected.position, expected.value]] : [],
    );
  });

  it('points need an identified consumer: no consumer, no LoyaltyInfo', () => {
    const r = run([], basket([pos(1, 'A', 1000)]), {
      schemes: [scheme({ id: 1, earn: [perEuro] })],
      consumer: null,
    });
    expect(r.loyalty).toEqual([]);
  });

  it('a product reward of a scheme appears in Rewards with RewardType 1, the scheme id and name', () => {
    const r = run([], basket([pos(4, 'COFFEE', 250)], { consumerKnown: true }), {
      schemes: [scheme({ id: 3, name: 'Coffee card', version: 2, reward: freeCoffee })],
      consumer: consumer({}, { 3: 10 }),
    });
    expect(r.rewards).toEqual([
      {
        rewardType: 1,
        productId: 'COFFEE',
        grossRewardMinor: 250,
        positionId: 4,
        couponId: 3,
        name: 'Coffee card',
        source: 'scheme',
        campaignVersion: 2,
      },
    ]);
    expect(r.loyalty[0]).toMatchObject({ pointsInScheme: 10, schemeVersion: 2 });
  });

  it('schemes are listed by id, and a second scheme sees what the first one took', () => {
    const r = run([], basket([pos(1, 'COFFEE', 250)], { consumerKnown: true }), {
      schemes: [scheme({ id: 9, reward: freeCoffee }), scheme({ id: 2, reward: freeCoffee })],
      consumer: consumer({}, { 2: 10, 9: 10 }),
    });
    expect(r.loyalty.map((l) => [l.schemeId, l.spentPoints, l.grossRewardMinor])).toEqual([
      [2, 10, 250],
      [9, 0, 0],
    ]);
  });

  it('points earned expire pointsExpireAfterDays after the basket Timestamp', () => {
    const r = run([], basket([pos(1, 'A', 100)], { consumerKnown: true }), {
      schemes: [scheme({ id: 1, earn: [perEuro], pointsExpireAfterDays: 365 })],
      consumer: consumer(),
    });
    expect(r.loyalty[0]?.earnedPointsExpireAtMs).toBe(MONDAY_NOON.utcMs + 365 * 86_400_000);
  });
});
