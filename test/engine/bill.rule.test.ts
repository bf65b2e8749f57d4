import { describe, expect, it } from 'vitest';
import { at, basket, campaign, pos, run } from './fixtures.js';
import type { Campaign, EngineBasket, EnginePosition } from '../../src/engine/types.js';

const bill = (id: number, discount: Campaign['discount'], over: Partial<Campaign> = {}): Campaign =>
  campaign({ id, type: 'bill', discount, ...over });
const pct = (bp: number) => ({ kind: 'percent', bp }) as const;
const off = (minor: number) => ({ kind: 'amount', minor }) as const;

/** [couponId, grossRewardMinor] of the bill rewards (RewardType 2). */
const billRewards = (campaigns: Campaign[], positions: EnginePosition[], over: Partial<EngineBasket> = {}) =>
  run(campaigns, basket(positions, over))
    .rewards.filter((r) => r.rewardType === 2)
    .map((r) => [r.couponId, r.grossRewardMinor]);

describe('bill campaigns', () => {
  it.each<{
    rule: string;
    campaigns: Campaign[];
    positions: EnginePosition[];
    over?: Partial<EngineBasket>;
    expected: number[][];
  }>([
    {
      rule: 'percent of the total left after product-level rewards',
      campaigns: [
        bill(2, pct(1000)),
        campaign({ id: 1, type: 'product', discount: off(150), products: [{ plu: 'A' }] }),
      ],
      positions: [pos(1, 'A', 1000), pos(2, 'B', 1000)],
      expected: [[2, 185]],
    },
    {
      rule: 'minTotal is checked against the total left after product-level rewards',
      campaigns: [
        bill(2, pct(1000), { minTotalMinor: 2000 }),
        campaign({ id: 1, type: 'product', discount: off(1), products: [{ plu: 'A' }] }),
      ],
      positions: [pos(1, 'A', 1000), pos(2, 'B', 1000)],
      expected: [],
    },
    {
      rule: 'minTotal reached exactly applies',
      campaigns: [bill(2, pct(1000), { minTotalMinor: 2000 })],
      positions: [pos(1, 'A', 1000), pos(2, 'B', 1000)],
      expected: [[2, 200]],
    },
    {
      rule: 'amount off the bill is capped at the bill left',
      campaigns: [bill(1, off(5000))],
      positions: [pos(1, 'A', 1200)],
      expected: [[1, 1200]],
    },
    {
      rule: 'price is the new price of the bill',
      campaigns: [bill(1, { kind: 'price', minor: 2000 })],
      positions: [pos(1, 'A', 2500)],
      expected: [[1, 500]],
    },
    {
      rule: 'amount applies once by default (maxApplications 1)',
      campaigns: [bill(1, off(500), { minTotalMinor: 2000 })],
      positions: [pos(1, 'A', 7500)],
      expected: [[1, 500]],
    },
    {
      rule: 'amount applies once per full multiple of minTotal up to maxApplications',
      campaigns: [bill(1, off(500), { minTotalMinor: 2000, maxApplications: 5 })],
      positions: [pos(1, 'A', 7500)],
      expected: [[1, 1500]],
    },
    {
      rule: 'non-exclusive bill campaigns stack, each on the bill left after the ones before',
      campaigns: [bill(1, pct(1000)), bill(2, pct(1000))],
      positions: [pos(1, 'A', 10000)],
      expected: [
        [1, 1000],
        [2, 900],
      ],
    },
    {
      rule: 'bill campaigns are processed by priority descending then id',
      campaigns: [bill(1, off(100)), bill(2, pct(1000), { priority: 3 })],
      positions: [pos(1, 'A', 10000)],
      expected: [
        [2, 1000],
        [1, 100],
      ],
    },
    {
      rule: 'an applicable exclusive bill campaign is the only bill reward',
      campaigns: [
        bill(1, pct(1000), { priority: 9 }),
        bill(2, off(100), { exclusive: true }),
        bill(3, off(200)),
      ],
      positions: [pos(1, 'A', 10000)],
      expected: [[2, 100]],
    },
    {
      rule: 'of several exclusive bill campaigns the one of the highest priority wins',
      campaigns: [
        bill(1, off(100), { exclusive: true }),
        bill(2, off(300), { exclusive: true, priority: 1 }),
      ],
      positions: [pos(1, 'A', 10000)],
      expected: [[2, 300]],
    },
    {
      rule: 'an exclusive bill campaign that does not apply excludes nothing',
      campaigns: [bill(1, off(100), { exclusive: true, minTotalMinor: 99999 }), bill(2, off(300))],
      positions: [pos(1, 'A', 10000)],
      expected: [[2, 300]],
    },
    {
      rule: 'positions with HasDiscounts neither count towards minTotal nor take a share of the bill reward',
      campaigns: [bill(1, pct(1000), { minTotalMinor: 1000 }), bill(2, pct(1000))],
      positions: [pos(1, 'A', 900), pos(2, 'TOBACCO', 5000, 1, { hasDiscounts: true })],
      expected: [[2, 90]],
    },
    {
      rule: 'a basket with HasDiscounts gets no bill reward',
      campaigns: [bill(1, pct(1000))],
      positions: [pos(1, 'A', 1000)],
      over: { hasDiscounts: true },
      expected: [],
    },
    {
      rule: 'a bill campaign follows its schedule at the basket Timestamp',
      campaigns: [bill(1, pct(1000), { schedule: [{ days: [6, 7], fromMinute: 0, toMinute: 1440 }] })],
      positions: [pos(1, 'A', 1000, 1, { orderTime: at('2026-03-07T12:00:00+00:00') })],
      expected: [],
    },
    {
      rule: 'an empty bill (only negative lines) gets nothing',
      campaigns: [bill(1, off(100))],
      positions: [pos(1, 'DEPOSIT', -25)],
      expected: [],
    },
  ])('$rule', ({ campaigns, positions, over, expected }) => {
    expect(billRewards(campaigns, positions, over)).toEqual(expected);
  });

  it('a bill reward has RewardType 2, ProductId empty and position 0, and explains exclusions', () => {
    const r = run(
      [bill(5, off(100), { exclusive: true, name: 'Welcome' }), bill(6, off(100))],
      basket([pos(1, 'A', 1000)]),
      { explain: true },
    );
    expect(r.rewards).toEqual([
      {
        rewardType: 2,
        productId: '',
        grossRewardMinor: 100,
        positionId: 0,
        couponId: 5,
        name: 'Welcome',
        source: 'campaign',
        campaignVersion: 1,
      },
    ]);
    expect(r.explanations).toEqual([
      { campaignId: 5, applied: true, applications: 1, reason: 'applied' },
      {
        campaignId: 6,
        applied: false,
        applications: 0,
        reason: 'excluded by exclusive bill campaign 5',
        blockedBy: [5],
      },
    ]);
    expect(r.couponUsages).toEqual([{ campaignId: 5, count: 1 }]);
  });
});
