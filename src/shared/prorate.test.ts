import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prorate } from './prorate.js';

describe('prorate (largest remainder)', () => {
  it.each([
    { rule: 'splits in proportion to the weights', total: 200, weights: [500, 300], expected: [125, 75] },
    {
      rule: 'gives the leftover unit to the largest remainder, ties to the lower index',
      total: 10,
      weights: [100, 100, 100],
      expected: [4, 3, 3],
    },
    {
      rule: 'gives leftovers to the largest remainders first',
      total: 10,
      weights: [1, 2, 3],
      expected: [2, 3, 5],
    },
    { rule: 'splits evenly when every weight is zero', total: 5, weights: [0, 0], expected: [3, 2] },
    { rule: 'gives nothing to a zero weight', total: 7, weights: [0, 5], expected: [0, 7] },
    { rule: 'splits a zero total into zeros', total: 0, weights: [3, 4], expected: [0, 0] },
    {
      rule: 'splits a negative total as its absolute value, negated',
      total: -10,
      weights: [1, 1, 1],
      expected: [-4, -3, -3],
    },
    { rule: 'returns no parts for no weights and a zero total', total: 0, weights: [], expected: [] },
    {
      rule: 'stays exact beyond the safe product range',
      total: 9_000_000_000_000,
      weights: [3_000_000_000, 3_000_000_000, 3_000_000_001],
      expected: [2_999_999_999_667, 2_999_999_999_667, 3_000_000_000_666],
    },
  ])('prorate $rule', ({ total, weights, expected }) => {
    expect(prorate(total, weights)).toEqual(expected);
  });

  it('refuses a non-zero total over no parts and negative weights', () => {
    expect(() => prorate(1, [])).toThrow(RangeError);
    expect(() => prorate(1, [1, -1])).toThrow(RangeError);
    expect(() => prorate(1.5, [1])).toThrow(RangeError);
  });

  it('parts add up to the whole and each part lies within floor/ceil of its exact share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 30 }),
        (total, weights) => {
          const parts = prorate(total, weights);
          expect(parts).toHaveLength(weights.length);
          expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
          const sum = weights.reduce((a, b) => a + b, 0);
          const effective = sum === 0 ? weights.map(() => 1) : weights;
          const weightSum = BigInt(sum === 0 ? weights.length : sum);
          parts.forEach((part, i) => {
            // exact share = total * w / sum; compare with exact integer arithmetic
            const numerator = BigInt(total) * BigInt(effective[i] ?? 0);
            const scaled = BigInt(part) * weightSum;
            expect(scaled - numerator < weightSum).toBe(true);
            expect(numerator - scaled < weightSum).toBe(true);
            expect(Number.isSafeInteger(part)).toBe(true);
          });
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('is deterministic and gives ties to the lower index', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 20 }), (total, n) => {
        const parts = prorate(total, new Array<number>(n).fill(7));
        expect(parts).toEqual(prorate(total, new Array<number>(n).fill(7)));
        for (let i = 1; i < n; i++) expect((parts[i - 1] ?? 0) >= (parts[i] ?? 0)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
