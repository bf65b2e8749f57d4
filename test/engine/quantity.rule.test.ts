import { describe, expect, it } from 'vitest';
import { basket, campaign, kg, pos, rewardsOf, run } from './fixtures.js';
import type { Campaign, EnginePosition } from '../../src/engine/types.js';

const G = { groupIds: ['G'] };
const buyGet = (
  buy: number,
  get: number,
  discount: Campaign['discount'],
  over: Partial<Campaign> = {},
): Campaign => campaign({ id: 1, type: 'quantity', discount, products: [{ group: 'G' }], buy, get, ...over });
const FREE = { kind: 'percent', bp: 10000 } as const;

describe('quantity campaigns', () => {
  it.each<{ rule: string; campaigns: Campaign[]; positions: EnginePosition[]; expected: [number, number][] }>(
    [
      {
        rule: 'buy 2 get 1 free: the third unit of a group is free',
        campaigns: [buyGet(2, 1, FREE)],
        positions: [pos(1, 'A', 100, 3, G)],
        expected: [[1, 100]],
      },
      {
        rule: 'the get units of a group are its cheapest units',
        campaigns: [buyGet(2, 1, FREE)],
        positions: [pos(1, 'A', 100, 1, G), pos(2, 'B', 300, 1, G), pos(3, 'C', 200, 1, G)],
        expected: [[1, 100]],
      },
      {
        rule: 'units are sorted by unit price, highest first, and cut into groups in that order',
        campaigns: [buyGet(1, 1, FREE)],
        positions: [
          pos(1, 'A', 100, 1, G),
          pos(2, 'B', 400, 1, G),
          pos(3, 'C', 300, 1, G),
          pos(4, 'D', 200, 1, G),
        ],
        expected: [
          [1, 100],
          [3, 300],
        ],
      },
      {
        rule: 'equal unit prices are ordered by the lower PositionId first, so the later position is the cheapest',
        campaigns: [buyGet(1, 1, FREE)],
        positions: [pos(2, 'A', 100, 1, G), pos(1, 'B', 100, 1, G)],
        expected: [[2, 100]],
      },
      {
        rule: 'an incomplete group gets nothing',
        campaigns: [buyGet(3, 1, FREE)],
        positions: [pos(1, 'A', 100, 3, G)],
        expected: [],
      },
      {
        rule: 'maxApplications counts full groups',
        campaigns: [buyGet(1, 1, { kind: 'percent', bp: 5000 }, { maxApplications: 1 })],
        positions: [pos(1, 'A', 100, 4, G)],
        expected: [[1, 50]],
      },
      {
        rule: 'rewards of several groups on one position are one entry',
        campaigns: [buyGet(1, 1, { kind: 'percent', bp: 5000 })],
        positions: [pos(1, 'A', 101, 4, G)],
        expected: [[1, 101]],
      },
      {
        rule: 'amount is taken off each get unit, capped at its price',
        campaigns: [buyGet(1, 1, { kind: 'amount', minor: 150 })],
        positions: [pos(1, 'A', 200, 1, G), pos(2, 'B', 100, 1, G)],
        expected: [[2, 100]],
      },
      {
        rule: 'price is the new price of each get unit',
        campaigns: [buyGet(1, 1, { kind: 'price', minor: 30 })],
        positions: [pos(1, 'A', 200, 2, G)],
        expected: [[1, 170]],
      },
      {
        rule: 'units of a full group take no other product-level reward, units left over may',
        campaigns: [
          buyGet(1, 1, FREE, { priority: 1 }),
          campaign({
            id: 2,
            type: 'product',
            discount: { kind: 'amount', minor: 10 },
            products: [{ group: 'G' }],
          }),
        ],
        positions: [pos(1, 'A', 100, 3, G)],
        expected: [
          [1, 100],
          [1, 10],
        ],
      },
      {
        rule: 'kg lines take no part in quantity campaigns (piece-count rule)',
        campaigns: [buyGet(1, 1, FREE)],
        positions: [kg(1, 'A', 100, 250, G), pos(2, 'B', 100, 1, G)],
        expected: [],
      },
      {
        rule: 'positions with HasDiscounts do not count towards a group',
        campaigns: [buyGet(1, 1, FREE)],
        positions: [pos(1, 'A', 100, 1, { ...G, hasDiscounts: true }), pos(2, 'B', 100, 1, G)],
        expected: [],
      },
    ],
  )('$rule', ({ campaigns, positions, expected }) => {
    expect(rewardsOf(run(campaigns, basket(positions)))).toEqual(expected);
  });

  it('counts one application per full group and explains an incomplete one', () => {
    const r = run([buyGet(1, 1, FREE)], basket([pos(1, 'A', 100, 5, G)]));
    expect(r.couponUsages).toEqual([{ campaignId: 1, count: 2 }]);
    const none = run([buyGet(3, 1, FREE)], basket([pos(1, 'A', 100, 2, G)]), { explain: true });
    expect(none.explanations).toEqual([
      { campaignId: 1, applied: false, applications: 0, reason: 'fewer than 4 qualifying units' },
    ]);
  });

  it('a campaign with get 0 never applies', () => {
    const r = run([buyGet(1, 0, FREE)], basket([pos(1, 'A', 100, 5, G)]), { explain: true });
    expect(r.rewards).toEqual([]);
    expect(r.explanations[0]?.reason).toBe('invalid buy/get');
  });
});
