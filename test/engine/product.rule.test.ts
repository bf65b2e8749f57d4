import { describe, expect, it } from 'vitest';
import { basket, campaign, kg, pos, rewardsOf, run } from './fixtures.js';
import type { Campaign, EnginePosition } from '../../src/engine/types.js';

const onA = (discount: Campaign['discount'], over: Partial<Campaign> = {}): Campaign =>
  campaign({ id: 1, type: 'product', discount, products: [{ plu: 'A' }], ...over });

describe('product campaigns', () => {
  it.each<{ rule: string; campaigns: Campaign[]; positions: EnginePosition[]; expected: [number, number][] }>(
    [
      {
        rule: 'percent is taken of the rewarded units together (20% of 3 x 2.45 = 1.47, not 3 x 0.49)',
        campaigns: [onA({ kind: 'percent', bp: 2000 })],
        positions: [pos(1, 'A', 245, 3)],
        expected: [[1, 147]],
      },
      {
        rule: 'percent rounds half away from zero (12.5% of 0.20 = 0.03)',
        campaigns: [onA({ kind: 'percent', bp: 1250 })],
        positions: [pos(1, 'A', 20, 1)],
        expected: [[1, 3]],
      },
      {
        rule: 'amount is taken off per unit',
        campaigns: [onA({ kind: 'amount', minor: 50 })],
        positions: [pos(1, 'A', 200, 3)],
        expected: [[1, 150]],
      },
      {
        rule: 'amount off a unit is capped at the unit price',
        campaigns: [onA({ kind: 'amount', minor: 300 })],
        positions: [pos(1, 'A', 200, 2)],
        expected: [[1, 400]],
      },
      {
        rule: 'price is the new unit price (unit price - price per unit)',
        campaigns: [onA({ kind: 'price', minor: 199 })],
        positions: [pos(1, 'A', 250, 2)],
        expected: [[1, 102]],
      },
      {
        rule: 'price not below the unit price gives no reward',
        campaigns: [onA({ kind: 'price', minor: 300 })],
        positions: [pos(1, 'A', 250, 2)],
        expected: [],
      },
      {
        rule: 'percent above 100 is capped at the value',
        campaigns: [onA({ kind: 'percent', bp: 15000 })],
        positions: [pos(1, 'A', 250, 2)],
        expected: [[1, 500]],
      },
      {
        rule: 'a group selector matches the article group or an ancestor group',
        campaigns: [
          campaign({
            id: 1,
            type: 'product',
            discount: { kind: 'amount', minor: 10 },
            products: [{ group: 'DRINKS' }],
          }),
        ],
        positions: [
          pos(1, 'A', 100, 1, { groupIds: ['BEER', 'DRINKS'] }),
          pos(2, 'B', 100, 1, { groupIds: ['FOOD'] }),
        ],
        expected: [[1, 10]],
      },
      {
        rule: 'a PLU selector matches ProductId exactly (case-sensitive)',
        campaigns: [onA({ kind: 'amount', minor: 10 })],
        positions: [pos(1, 'a', 100), pos(2, null, 100), pos(3, 'A', 100)],
        expected: [[3, 10]],
      },
      {
        rule: 'an empty product list selects every article',
        campaigns: [campaign({ id: 1, type: 'product', discount: { kind: 'amount', minor: 10 } })],
        positions: [pos(1, 'A', 100), pos(2, 'B', 100, 2)],
        expected: [
          [1, 10],
          [2, 20],
        ],
      },
      {
        rule: 'maxApplications counts units and rewards the most expensive units first',
        campaigns: [
          campaign({
            id: 1,
            type: 'product',
            discount: { kind: 'percent', bp: 1000 },
            products: [{ plu: 'A' }, { plu: 'B' }],
            maxApplications: 2,
          }),
        ],
        positions: [pos(1, 'B', 200, 2), pos(2, 'A', 300, 1), pos(3, 'A', 100, 5)],
        expected: [
          [1, 20],
          [2, 30],
        ],
      },
      {
        rule: 'equal unit prices under maxApplications go to the lower PositionId',
        campaigns: [onA({ kind: 'amount', minor: 10 }, { maxApplications: 1 })],
        positions: [pos(5, 'A', 100), pos(4, 'A', 100)],
        expected: [[4, 10]],
      },
      {
        rule: 'a position with HasDiscounts takes no reward',
        campaigns: [onA({ kind: 'amount', minor: 10 })],
        positions: [pos(1, 'A', 100, 1, { hasDiscounts: true }), pos(2, 'A', 100)],
        expected: [[2, 10]],
      },
      {
        rule: 'a position with a zero or negative price takes no reward',
        campaigns: [onA({ kind: 'percent', bp: 5000 })],
        positions: [pos(1, 'A', 0, 2), pos(2, 'A', -100, 1)],
        expected: [],
      },
      {
        rule: 'a kg line gets percent of its line value',
        campaigns: [onA({ kind: 'percent', bp: 2000 })],
        positions: [kg(1, 'A', 1000, 1234)],
        expected: [[1, 247]],
      },
      {
        rule: 'a kg line gets amount off once per line, capped at the line',
        campaigns: [onA({ kind: 'amount', minor: 100 })],
        positions: [kg(1, 'A', 1000, 1234), kg(2, 'A', 1000, 50)],
        expected: [
          [1, 100],
          [2, 50],
        ],
      },
      {
        rule: 'a kg line with price gets the new price per kg (line x (1 - price / unit price))',
        campaigns: [onA({ kind: 'price', minor: 800 })],
        positions: [kg(1, 'A', 1000, 1234)],
        expected: [[1, 247]],
      },
      {
        rule: 'a unit takes at most one product-level reward: the higher priority campaign takes it first',
        campaigns: [
          onA({ kind: 'percent', bp: 1000 }, { id: 1 }),
          onA({ kind: 'percent', bp: 5000 }, { id: 2, priority: 5, maxApplications: 1 }),
        ],
        positions: [pos(1, 'A', 100, 3)],
        expected: [
          [1, 50],
          [1, 20],
        ],
      },
      {
        rule: 'campaigns of equal priority are processed by id',
        campaigns: [
          onA({ kind: 'amount', minor: 30 }, { id: 9 }),
          onA({ kind: 'amount', minor: 10 }, { id: 2 }),
        ],
        positions: [pos(1, 'A', 100, 2)],
        expected: [[1, 20]],
      },
    ],
  )('$rule', ({ campaigns, positions, expected }) => {
    expect(rewardsOf(run(campaigns, basket(positions)))).toEqual(expected);
  });

  it('reports one application per rewarded unit, one per kg line, and the reason when nothing applied', () => {
    const r = run([onA({ kind: 'amount', minor: 10 })], basket([pos(1, 'A', 100, 3), kg(2, 'A', 500, 700)]));
    expect(r.couponUsages).toEqual([{ campaignId: 1, count: 4 }]);
    const none = run([onA({ kind: 'price', minor: 500 })], basket([pos(1, 'A', 100)]), { explain: true });
    expect(none.explanations).toEqual([
      { campaignId: 1, applied: false, applications: 0, reason: 'reward would be 0' },
    ]);
  });

  it('the reward entry carries the PLU, the position, the campaign id, name and version', () => {
    const r = run(
      [onA({ kind: 'amount', minor: 10 }, { id: 42, name: 'Deal', version: 3 })],
      basket([pos(7, 'A', 100)]),
    );
    expect(r.rewards).toEqual([
      {
        rewardType: 1,
        productId: 'A',
        grossRewardMinor: 10,
        positionId: 7,
        couponId: 42,
        name: 'Deal',
        source: 'campaign',
        campaignVersion: 3,
      },
    ]);
  });
});
