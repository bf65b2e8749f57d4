import { describe, expect, it } from 'vitest';
import { basket, campaign, pos, run } from './fixtures.js';
import type { Campaign } from '../../src/engine/types.js';

/*
 * No reward exceeds the bill left (docs/decisions.md, "Reward engine rules"). A basket whose
 * positions of negative value (a deposit given back) leave nothing of the bill has nothing a
 * campaign could take off: the campaign does not apply, counts no coupon usage and takes no unit.
 */
const G = { groupIds: ['G'] };
const ONE_OFF = { kind: 'amount', minor: 50 } as const;
const NOTHING_LEFT = basket([pos(1, 'A', 100, 2, G), pos(2, 'DEPOSIT', -200, 1)]);

const cases: { rule: string; c: Campaign }[] = [
  {
    rule: 'a quantity campaign (buy 1 get 1) on a bill with nothing left',
    c: campaign({ id: 7, type: 'quantity', discount: ONE_OFF, products: [{ group: 'G' }], buy: 1, get: 1 }),
  },
  {
    rule: 'a combination campaign on a bill with nothing left',
    c: campaign({
      id: 7,
      type: 'combination',
      discount: ONE_OFF,
      combination: [
        { selector: { plu: 'A' }, quantity: 1 },
        { selector: { group: 'G' }, quantity: 1 },
      ],
    }),
  },
];

describe('no reward on a bill with nothing left', () => {
  it.each(cases)('$rule does not apply and counts no coupon usage', ({ c }) => {
    for (const explain of [false, true]) {
      const r = run([c], NOTHING_LEFT, { explain });
      expect(r.rewards).toEqual([]);
      expect(r.couponUsages).toEqual([]);
      expect(r.explanations.filter((e) => e.applied)).toEqual([]);
      if (explain) {
        expect(r.explanations).toEqual([
          { campaignId: 7, applied: false, applications: 0, reason: 'reward would be 0' },
        ]);
      }
    }
  });

  it.each(cases)('$rule applies once the bill has something left', ({ c }) => {
    const r = run([c], basket([pos(1, 'A', 100, 2, G), pos(2, 'DEPOSIT', -100, 1)]));
    expect(r.couponUsages).toEqual([{ campaignId: 7, count: 1 }]);
    expect(r.rewards.reduce((sum, x) => sum + x.grossRewardMinor, 0)).toBe(50);
  });
});
