import { describe, expect, it } from 'vitest';
import { basket, campaign, kg, pos, rewardsOf, run } from './fixtures.js';
import type { Campaign, EnginePosition, Selector } from '../../src/engine/types.js';

const combo = (
  discount: Campaign['discount'],
  parts: [Selector, number][],
  over: Partial<Campaign> = {},
): Campaign =>
  campaign({
    id: 1,
    type: 'combination',
    discount,
    combination: parts.map(([selector, quantity]) => ({ selector, quantity })),
    ...over,
  });
const AB: [Selector, number][] = [
  [{ plu: 'A' }, 1],
  [{ plu: 'B' }, 1],
];

describe('combination campaigns', () => {
  it.each<{ rule: string; campaigns: Campaign[]; positions: EnginePosition[]; expected: [number, number][] }>(
    [
      {
        rule: 'amount off the combination is split over its positions in proportion to their value',
        campaigns: [combo({ kind: 'amount', minor: 200 }, AB)],
        positions: [pos(1, 'A', 500), pos(2, 'B', 300)],
        expected: [
          [1, 125],
          [2, 75],
        ],
      },
      {
        rule: 'the split gives the leftover cent to the largest remainder, ties to the lower PositionId',
        campaigns: [
          combo({ kind: 'amount', minor: 10 }, [
            [{ plu: 'A' }, 1],
            [{ plu: 'B' }, 1],
            [{ plu: 'C' }, 1],
          ]),
        ],
        positions: [pos(9, 'A', 100), pos(4, 'B', 100), pos(6, 'C', 100)],
        expected: [
          [4, 4],
          [6, 3],
          [9, 3],
        ],
      },
      {
        rule: 'percent is taken of the combination value',
        campaigns: [combo({ kind: 'percent', bp: 1000 }, AB)],
        positions: [pos(1, 'A', 500), pos(2, 'B', 300)],
        expected: [
          [1, 50],
          [2, 30],
        ],
      },
      {
        rule: 'price is the new price of the combination (value - price)',
        campaigns: [combo({ kind: 'price', minor: 600 }, AB)],
        positions: [pos(1, 'A', 500), pos(2, 'B', 300)],
        expected: [
          [1, 125],
          [2, 75],
        ],
      },
      {
        rule: 'a price above the combination value gives no reward',
        campaigns: [combo({ kind: 'price', minor: 900 }, AB)],
        positions: [pos(1, 'A', 500), pos(2, 'B', 300)],
        expected: [],
      },
      {
        rule: 'amount off the combination is capped at its value',
        campaigns: [combo({ kind: 'amount', minor: 1000 }, AB)],
        positions: [pos(1, 'A', 100), pos(2, 'B', 50)],
        expected: [
          [1, 100],
          [2, 50],
        ],
      },
      {
        rule: 'every application needs all parts',
        campaigns: [combo({ kind: 'amount', minor: 100 }, AB)],
        positions: [pos(1, 'A', 500, 3)],
        expected: [],
      },
      {
        rule: 'a part with quantity needs that many units',
        campaigns: [
          combo({ kind: 'amount', minor: 100 }, [
            [{ plu: 'A' }, 2],
            [{ plu: 'B' }, 1],
          ]),
        ],
        positions: [pos(1, 'A', 500), pos(2, 'B', 300)],
        expected: [],
      },
      {
        rule: 'several applications are added up into one entry per position',
        campaigns: [combo({ kind: 'amount', minor: 100 }, AB)],
        positions: [pos(1, 'A', 500, 2), pos(2, 'B', 300, 3)],
        expected: [
          [1, 125],
          [2, 75],
        ],
      },
      {
        rule: 'maxApplications counts full sets',
        campaigns: [combo({ kind: 'amount', minor: 80 }, AB, { maxApplications: 1 })],
        positions: [pos(1, 'A', 500, 2), pos(2, 'B', 300, 2)],
        expected: [
          [1, 50],
          [2, 30],
        ],
      },
      {
        rule: 'units are picked highest unit price first, ties to the lower PositionId',
        campaigns: [
          combo({ kind: 'percent', bp: 1000 }, [
            [{ group: 'G' }, 1],
            [{ plu: 'B' }, 1],
          ]),
        ],
        positions: [
          pos(1, 'X', 100, 1, { groupIds: ['G'] }),
          pos(3, 'Y', 300, 1, { groupIds: ['G'] }),
          pos(2, 'Z', 300, 1, { groupIds: ['G'] }),
          pos(4, 'B', 200),
        ],
        expected: [
          [2, 30],
          [4, 20],
        ],
      },
      {
        rule: 'a unit serves one part only, and the part with the fewest candidates is filled first',
        campaigns: [
          combo({ kind: 'amount', minor: 80 }, [
            [{ group: 'G' }, 1],
            [{ plu: 'A' }, 1],
          ]),
        ],
        positions: [pos(1, 'A', 500, 1, { groupIds: ['G'] }), pos(2, 'B', 300, 1, { groupIds: ['G'] })],
        expected: [
          [1, 50],
          [2, 30],
        ],
      },
      {
        rule: 'claimed units take no other product-level reward',
        campaigns: [
          combo({ kind: 'amount', minor: 80 }, AB, { priority: 1 }),
          campaign({
            id: 2,
            type: 'product',
            discount: { kind: 'percent', bp: 5000 },
            products: [{ plu: 'A' }],
          }),
        ],
        positions: [pos(1, 'A', 500, 2), pos(2, 'B', 300)],
        expected: [
          [1, 50],
          [2, 30],
          [1, 250],
        ],
      },
      {
        rule: 'kg lines take no part in combinations (parts count pieces)',
        campaigns: [combo({ kind: 'amount', minor: 80 }, AB)],
        positions: [kg(1, 'A', 500, 500), pos(2, 'B', 300)],
        expected: [],
      },
      {
        rule: 'a position with HasDiscounts cannot complete a combination',
        campaigns: [combo({ kind: 'amount', minor: 80 }, AB)],
        positions: [pos(1, 'A', 500, 1, { hasDiscounts: true }), pos(2, 'B', 300)],
        expected: [],
      },
    ],
  )('$rule', ({ campaigns, positions, expected }) => {
    expect(rewardsOf(run(campaigns, basket(positions)))).toEqual(expected);
  });

  it('counts one application per full set and uses one CouponId for all entries', () => {
    const r = run(
      [combo({ kind: 'amount', minor: 100 }, AB, { id: 77 })],
      basket([pos(1, 'A', 500, 2), pos(2, 'B', 300, 3)]),
    );
    expect(r.couponUsages).toEqual([{ campaignId: 77, count: 2 }]);
    expect(new Set(r.rewards.map((x) => x.couponId))).toEqual(new Set([77]));
  });

  it('a combination without parts or with a zero quantity never applies', () => {
    const r = run(
      [
        combo({ kind: 'amount', minor: 100 }, [], { id: 1 }),
        combo({ kind: 'amount', minor: 100 }, [[{ plu: 'A' }, 0]], { id: 2 }),
      ],
      basket([pos(1, 'A', 500)]),
      { explain: true },
    );
    expect(r.rewards).toEqual([]);
    expect(r.explanations).toEqual([
      { campaignId: 2, applied: false, applications: 0, reason: 'invalid combination' },
    ]);
  });
});
