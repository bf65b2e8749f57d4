import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RewardLine } from '../../src/engine/types.js';
import type { GrantBooking, ReturnRequest, StoredReturn } from '../../src/baskets/basket-model.js';
import { type SoldPosition, decideReturn, planReturn } from '../../src/baskets/return-rules.js';
import type { Decimal } from '../../src/shared/money.js';

const reward = (rewardType: 1 | 2, positionId: number, grossRewardMinor: number): RewardLine => ({
  rewardType,
  productId: '',
  grossRewardMinor,
  positionId,
  couponId: 1,
  name: 'r',
  source: 'campaign',
  campaignVersion: 1,
});

/** A basket: positions with exact amounts (thousandths), product rewards below the line, a bill reward. */
const basketArb = fc
  .array(
    fc.record({
      thousandths: fc.integer({ min: 1, max: 20_000 }),
      lineGrossMinor: fc.integer({ min: 0, max: 100_000 }),
      rewardPercent: fc.integer({ min: 0, max: 100 }),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .chain((lines) =>
    fc.record({
      lines: fc.constant(lines),
      billMinor: fc.integer({ min: 0, max: 500 }),
      earned: fc.integer({ min: 0, max: 10_000 }),
      // Each position is returned in up to 4 parts (cut points in thousandths).
      cuts: fc.tuple(
        ...lines.map((l) => fc.array(fc.integer({ min: 1, max: l.thousandths }), { maxLength: 3 })),
      ),
    }),
  );

const dec = (thousandths: number): Decimal => ({ units: BigInt(thousandths), scale: 3 });

describe('return plan (pure)', () => {
  it('any split of a basket into returns adds up exactly to the full return, and no return takes a negative share', () => {
    fc.assert(
      fc.property(basketArb, ({ lines, billMinor, earned, cuts }) => {
        const sold: SoldPosition[] = lines.map((l, i) => ({
          positionId: i + 1,
          amount: dec(l.thousandths),
          lineGrossMinor: l.lineGrossMinor,
        }));
        const rewards = lines
          .map((l, i) => reward(1, i + 1, Math.floor((l.lineGrossMinor * l.rewardPercent) / 100)))
          .filter((r) => r.grossRewardMinor > 0);
        const totalValue = lines.reduce(
          (s, l, i) =>
            s + l.lineGrossMinor - (rewards.find((r) => r.positionId === i + 1)?.grossRewardMinor ?? 0),
          0,
        );
        const bill = Math.min(billMinor, totalValue);
        if (bill > 0) rewards.push(reward(2, 0, bill));
        const totalRewards = rewards.reduce((s, r) => s + r.grossRewardMinor, 0);

        // Step k returns, for every position, up to its k-th cut point (the last step: everything).
        const steps = Math.max(...cuts.map((c) => c.length)) + 1;
        let refundedBefore = 0;
        let dueBefore = 0;
        for (let k = 0; k < steps; k++) {
          const soFar = new Map<number, Decimal>();
          lines.forEach((l, i) => {
            const points = [...(cuts[i] ?? [])].sort((a, b) => a - b);
            const upTo = k === steps - 1 ? l.thousandths : (points[k] ?? points[points.length - 1] ?? 0);
            soFar.set(i + 1, dec(upTo));
          });
          const plan = planReturn(sold, rewards, [{ schemeId: 7, earned }], soFar);
          const due = plan.pointsDueSoFar.get(7) ?? 0;
          expect(plan.refundedSoFarMinor).toBeGreaterThanOrEqual(refundedBefore);
          expect(due).toBeGreaterThanOrEqual(dueBefore);
          refundedBefore = plan.refundedSoFarMinor;
          dueBefore = due;
        }
        expect(refundedBefore).toBe(totalRewards);
        expect(dueBefore).toBe(earned);
      }),
      { numRuns: 2000 },
    );
  });

  it('worked example: one of three 4.10 units of a 17.30 basket takes back 4 of 17 points', () => {
    const sold: SoldPosition[] = [
      { positionId: 1, amount: dec(2000), lineGrossMinor: 500 },
      { positionId: 2, amount: dec(3000), lineGrossMinor: 1230 },
    ];
    const plan = planReturn(sold, [], [{ schemeId: 1, earned: 17 }], new Map([[2, dec(1000)]]));
    expect(plan.pointsDueSoFar.get(1)).toBe(4);
    expect(plan.basketReturned).toBe(false);
    expect([...plan.positionsReturned]).toEqual([]);
  });

  it('a bill reward is spread over the positions by value (largest remainder) and refunded with them', () => {
    // Values 1.00 and 2.00; 0.10 off the bill: 0.03 and 0.07 (largest remainder), refunded with each line.
    const sold: SoldPosition[] = [
      { positionId: 1, amount: dec(1000), lineGrossMinor: 100 },
      { positionId: 2, amount: dec(1000), lineGrossMinor: 200 },
    ];
    const rewards = [reward(2, 0, 10)];
    expect(planReturn(sold, rewards, [], new Map([[1, dec(1000)]])).refundedSoFarMinor).toBe(3);
    expect(planReturn(sold, rewards, [], new Map([[2, dec(1000)]])).refundedSoFarMinor).toBe(7);
  });
});

describe('the return decision (pure: facts in, decision or refusal out)', () => {
  const booking: GrantBooking = {
    consumer: { profileId: 7 },
    redeemedInPos: true,
    grantedAtMs: 0,
    rewards: [reward(1, 1, 100)],
    loyalty: [{ schemeId: 3, earned: 10, spent: 5, positionId: 1, grossRewardMinor: 100, expiresAtMs: null }],
    usages: [{ campaignId: 1, count: 1 }],
  };
  const sold: SoldPosition[] = [
    { positionId: 1, amount: dec(2000), lineGrossMinor: 1000 },
    { positionId: 2, amount: dec(1000), lineGrossMinor: 1000 },
  ];
  const request = (returnId: string, positions: [number, string][]): ReturnRequest => ({
    ReturnId: returnId,
    Positions: positions.map(([PositionId, Amount]) => ({ PositionId, Amount })),
  });
  const decide = (r: ReturnRequest, earlier: { request: ReturnRequest; stored: StoredReturn }[] = []) =>
    decideReturn({ request: r, earlier, sold, booking });

  it('more returned than was sold is refused (11012) and a position not sold is a bad body (1000)', () => {
    expect(decide(request('R1', [[1, '2.001']]))).toMatchObject({ ok: false, reason: 'exceeds_sold' });
    expect(decide(request('R1', [[9, '1']]))).toMatchObject({ ok: false, reason: 'invalid_body' });
  });

  it('a full return of the rewarded position gives the spent points back and releases its campaign', () => {
    const d = decide(request('R1', [[1, '2']]));
    if (!d.ok || d.kind !== 'book') throw new Error(JSON.stringify(d));
    // Position 1 is worth 1000 - 100 of 1900: floor(10 x 900 / 1900) = 4 points due back.
    expect(d.schemes).toEqual([{ schemeId: 3, giveBack: 5, due: 4 }]);
    expect(d.releaseCampaigns).toEqual([1]);
    expect(d.refundedMinor).toBe(100);
  });

  it('the same ReturnId answers the stored response; with other positions it is refused (11014)', () => {
    const first = request('R1', [[2, '1']]);
    const stored: StoredReturn = {
      response: { ReturnId: 'R1', RefundedRewardValue: 0, LoyaltyInfo: [] },
      booking: {
        positions: [{ positionId: 2, amount: '1' }],
        refundedMinor: 0,
        loyalty: [],
        releasedCampaigns: [],
      },
    };
    expect(decide(first, [{ request: first, stored }])).toEqual({
      ok: true,
      kind: 'repeat',
      response: stored.response,
    });
    expect(decide(request('R1', [[1, '1']]), [{ request: first, stored }])).toMatchObject({
      ok: false,
      reason: 'return_id_reused',
    });
  });
});
