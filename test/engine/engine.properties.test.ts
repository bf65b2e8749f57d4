import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCampaignIndex } from '../../src/engine/campaign-index.js';
import { evaluateBasket } from '../../src/engine/evaluate.js';
import { BASE_MS, PLUS, RUNS, world } from './arbitraries.js';
import { deepFreeze } from './fixtures.js';
import type { Campaign, ConsumerState, EngineBasket, LoyaltyScheme } from '../../src/engine/types.js';

const evaluate = (w: {
  campaigns: Campaign[];
  basket: EngineBasket;
  schemes: LoyaltyScheme[];
  consumer: ConsumerState | null;
}) => evaluateBasket(buildCampaignIndex(w.campaigns), w.schemes, w.basket, w.consumer, { explain: true });

describe('engine properties', () => {
  it('no reward exceeds what is left of its position or of the bill', () => {
    fc.assert(
      fc.property(world, (w) => {
        const r = evaluate(w);
        const eligible = w.basket.hasDiscounts ? [] : w.basket.positions.filter((p) => !p.hasDiscounts);
        const billTotal = Math.max(
          0,
          eligible.reduce((s, p) => s + p.lineGrossMinor, 0),
        );
        let total = 0;
        const perPosition = new Map<number, number>();
        for (const x of r.rewards) {
          expect(Number.isSafeInteger(x.grossRewardMinor) && x.grossRewardMinor > 0).toBe(true);
          total += x.grossRewardMinor;
          if (x.rewardType === 1)
            perPosition.set(x.positionId, (perPosition.get(x.positionId) ?? 0) + x.grossRewardMinor);
          else expect([x.positionId, x.productId]).toEqual([0, '']);
        }
        expect(total).toBeLessThanOrEqual(billTotal);
        for (const [positionId, sum] of perPosition) {
          const p = eligible.find((q) => q.positionId === positionId);
          expect(p).toBeDefined();
          expect(sum).toBeLessThanOrEqual(Math.max(0, p?.lineGrossMinor ?? 0));
        }
        if (w.basket.hasDiscounts) expect(r.rewards).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  it('loyalty points balance: new = previous + earned - spent, spent is 0 or the threshold, only with a consumer', () => {
    fc.assert(
      fc.property(world, (w) => {
        const r = evaluate(w);
        if (w.consumer === null) expect(r.loyalty).toEqual([]);
        for (const l of r.loyalty) {
          expect(l.newPoints).toBe(l.previousPoints + l.earnedPoints - l.spentPoints);
          expect([0, l.pointsInScheme]).toContain(l.spentPoints);
          expect(l.spentPoints > 0).toBe(l.grossRewardMinor > 0);
          if (l.spentPoints > 0)
            expect(l.previousPoints + l.earnedPoints).toBeGreaterThanOrEqual(l.pointsInScheme);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('the result does not depend on the order of the positions', () => {
    fc.assert(
      fc.property(
        world.chain((w) =>
          fc
            .shuffledSubarray(w.basket.positions, { minLength: w.basket.positions.length })
            .map((shuffled) => ({ w, shuffled })),
        ),
        ({ w, shuffled }) => {
          expect(evaluate({ ...w, basket: { ...w.basket, positions: shuffled } })).toEqual(evaluate(w));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the result does not depend on the order of the campaigns or schemes', () => {
    fc.assert(
      fc.property(world, (w) => {
        const reversed = { ...w, campaigns: [...w.campaigns].reverse(), schemes: [...w.schemes].reverse() };
        expect(evaluate(reversed)).toEqual(evaluate(w));
      }),
      { numRuns: RUNS },
    );
  });

  it('is deterministic: a resubmitted identical basket gets the same rewards, and inputs are never mutated', () => {
    fc.assert(
      fc.property(world, (w) => {
        const snapshot = structuredClone(w);
        const frozen = deepFreeze(w);
        const index = buildCampaignIndex(frozen.campaigns);
        const first = evaluateBasket(index, frozen.schemes, frozen.basket, frozen.consumer, {
          explain: true,
        });
        const again = evaluateBasket(
          index,
          frozen.schemes,
          structuredClone(snapshot.basket),
          frozen.consumer,
          {
            explain: true,
          },
        );
        expect(again).toEqual(first);
        expect(w).toEqual(snapshot);
      }),
      { numRuns: RUNS },
    );
  });

  it('asking for explanations changes nothing else: same rewards, loyalty, usages and applied campaigns', () => {
    fc.assert(
      fc.property(world, (w) => {
        const index = buildCampaignIndex(w.campaigns);
        const plain = evaluateBasket(index, w.schemes, w.basket, w.consumer);
        const explained = evaluateBasket(index, w.schemes, w.basket, w.consumer, { explain: true });
        expect(plain.rewards).toEqual(explained.rewards);
        expect(plain.loyalty).toEqual(explained.loyalty);
        expect(plain.couponUsages).toEqual(explained.couponUsages);
        expect(plain.explanations).toEqual(explained.explanations.filter((e) => e.applied));
      }),
      { numRuns: RUNS },
    );
  });

  it('explanations agree with rewards and coupon usages', () => {
    fc.assert(
      fc.property(world, (w) => {
        const r = evaluate(w);
        const applied = r.explanations.filter((e) => e.applied);
        expect(applied.map((e) => ({ campaignId: e.campaignId, count: e.applications }))).toEqual(
          r.couponUsages,
        );
        const rewarded = new Set(r.rewards.filter((x) => x.source === 'campaign').map((x) => x.couponId));
        expect(new Set(applied.map((e) => e.campaignId))).toEqual(rewarded);
        for (const e of applied) expect(e.applications).toBeGreaterThan(0);
      }),
      { numRuns: RUNS },
    );
  });

  it('combination splits add up exactly to the reward of the claimed units', () => {
    const comboWorld = fc.record({
      parts: fc
        .shuffledSubarray(PLUS, { minLength: 1, maxLength: 4 })
        .chain((plus) =>
          fc.tuple(
            ...plus.map((plu) =>
              fc.record({ plu: fc.constant(plu), quantity: fc.integer({ min: 1, max: 2 }) }),
            ),
          ),
        ),
      amountMinor: fc.integer({ min: 1, max: 5000 }),
      positions: fc
        .uniqueArray(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 10 })
        .chain((ids) =>
          fc.tuple(
            ...ids.map((positionId) =>
              fc.record({
                positionId: fc.constant(positionId),
                plu: fc.constantFrom(...PLUS),
                unitPriceMinor: fc.integer({ min: 1, max: 999 }),
                pieces: fc.integer({ min: 1, max: 3 }),
              }),
            ),
          ),
        ),
    });
    fc.assert(
      fc.property(comboWorld, ({ parts, amountMinor, positions }) => {
        const c: Campaign = {
          id: 1,
          version: 1,
          name: 'combo',
          type: 'combination',
          discount: { kind: 'amount', minor: amountMinor },
          products: [],
          combination: parts.map((p) => ({ selector: { plu: p.plu }, quantity: p.quantity })),
          buy: 0,
          get: 0,
          minTotalMinor: 0,
          maxApplications: 1,
          couponCode: null,
          requiresConsumer: false,
          validFromMs: null,
          validToMs: null,
          schedule: [],
          outletIds: null,
          channels: [],
          priority: 0,
          exclusive: false,
          usageLimitPerConsumer: null,
        };
        const b: EngineBasket = {
          timestamp: { utcMs: BASE_MS, offsetMinutes: 0 },
          hasDiscounts: false,
          outletId: 1,
          channel: 'pos',
          couponCodes: [],
          consumerKnown: false,
          positions: positions.map((p) => ({
            positionId: p.positionId,
            productId: p.plu,
            groupIds: [],
            unit: 0,
            pieces: p.pieces,
            unitPriceMinor: p.unitPriceMinor,
            lineGrossMinor: p.unitPriceMinor * p.pieces,
            hasDiscounts: false,
            orderTime: null,
          })),
        };
        // Independent expectation: each part claims its `quantity` most expensive units (parts name distinct PLUs).
        let value = 0;
        let complete = true;
        for (const part of parts) {
          const units = positions
            .filter((p) => p.plu === part.plu)
            .flatMap((p) => new Array<number>(p.pieces).fill(p.unitPriceMinor))
            .sort((x, y) => y - x);
          if (units.length < part.quantity) complete = false;
          value += units.slice(0, part.quantity).reduce((s, u) => s + u, 0);
        }
        const r = evaluateBasket(buildCampaignIndex([c]), [], b, null);
        const sum = r.rewards.reduce((s, x) => s + x.grossRewardMinor, 0);
        expect(sum).toBe(complete ? Math.min(amountMinor, value) : 0);
        expect(new Set(r.rewards.map((x) => x.positionId)).size).toBe(r.rewards.length);
        const ids = r.rewards.map((x) => x.positionId);
        expect(ids).toEqual([...ids].sort((x, y) => x - y));
      }),
      { numRuns: RUNS },
    );
  });
});
