import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCampaignIndex } from '../../src/engine/campaign-index.js';
import { evaluateBasket } from '../../src/engine/evaluate.js';
import { MAX_POINTS_PER_BASKET } from '../../src/engine/loyalty.rule.js';
import { multiplyPoints, tierStanding } from '../../src/engine/tiers.js';
import type { ConsumerState, LoyaltyScheme, Tier } from '../../src/engine/types.js';
import { RUNS, world } from './arbitraries.js';

/** Status tiers in the engine (docs/decisions.md, "Status tiers"). */

const SILVER: Tier = { name: 'Silver', threshold: 100, multiplierPermille: 1500 };
const GOLD: Tier = { name: 'Gold', threshold: 300, multiplierPermille: 2000 };

describe('a tier among the thresholds', () => {
  it.each([
    [0, null, 'Silver', 100],
    [99, null, 'Silver', 1],
    [100, 'Silver', 'Gold', 200],
    [299, 'Silver', 'Gold', 1],
    [300, 'Gold', null, null],
    [5000, 'Gold', null, null],
  ])('measure %i: tier %s, next %s, missing %s', (measure, tier, next, missing) => {
    const s = tierStanding([SILVER, GOLD], measure);
    expect(s.tier?.name ?? null).toBe(tier);
    expect(s.next?.name ?? null).toBe(next);
    expect(s.missing).toBe(missing);
  });

  it.each([
    [7, SILVER, 10],
    [1, SILVER, 1],
    [3, { ...SILVER, multiplierPermille: 1333 }, 3],
    [12, GOLD, 24],
    [12, null, 12],
  ])('%i points times the tier, rounded down', (points, tier, expected) => {
    expect(multiplyPoints(points, tier)).toBe(expected);
  });
});

const withMeasures = (consumer: ConsumerState | null, measures: [number, number][]): ConsumerState | null =>
  consumer === null ? null : { ...consumer, tierMeasures: new Map(measures) };

const tiered = (schemes: LoyaltyScheme[], tiers: Tier[]): LoyaltyScheme[] =>
  schemes.map((s) => ({
    ...s,
    tiers,
    tierBasis: { measure: 'points', period: { kind: 'rolling', days: 30 } },
  }));

const measuresArb = fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 1000 })));

describe('status tiers in the engine, properties', () => {
  const run = (w: { campaigns: Parameters<typeof buildCampaignIndex>[0] } & Record<string, unknown>) =>
    buildCampaignIndex(w.campaigns);

  it('no tiers defined: the same rewards, loyalty lines and usages as today, whatever measures the consumer has', () => {
    fc.assert(
      fc.property(world, measuresArb, (w, measures) => {
        const index = run(w);
        const today = evaluateBasket(index, w.schemes, w.basket, w.consumer);
        const measured = evaluateBasket(index, w.schemes, w.basket, withMeasures(w.consumer, measures));
        expect(measured).toEqual(today);
        // Earning as the documents' rule computes it: whole multiples of the gross after campaign rewards, whole pieces.
        if (w.consumer === null) return;
        const gross = w.basket.positions.reduce((s, p) => s + p.lineGrossMinor, 0);
        const campaignRewards = today.rewards
          .filter((r) => r.source === 'campaign')
          .reduce((s, r) => s + r.grossRewardMinor, 0);
        for (const line of today.loyalty) {
          const scheme = w.schemes.find((s) => s.id === line.schemeId);
          let expected = 0;
          for (const rule of scheme?.earn ?? []) {
            if (rule.per === 'amount')
              expected += Math.floor(Math.max(0, gross - campaignRewards) / rule.amountMinor) * rule.points;
            else {
              const pieces = w.basket.positions
                .filter((p) => p.unit === 0 && p.pieces > 0)
                .filter(
                  (p) =>
                    rule.products.length === 0 ||
                    rule.products.some((sel) =>
                      'plu' in sel ? sel.plu === p.productId : p.groupIds.includes(sel.group),
                    ),
                )
                .reduce((s, p) => s + Math.floor(p.pieces), 0);
              expected += pieces * rule.points;
            }
          }
          expect(line.earnedPoints).toBe(Math.min(expected, MAX_POINTS_PER_BASKET));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("tiers whose multiplier is 1, or a consumer below the first threshold: today's result", () => {
    fc.assert(
      fc.property(world, measuresArb, (w, measures) => {
        const index = run(w);
        const today = evaluateBasket(index, w.schemes, w.basket, w.consumer);
        const flat = tiered(w.schemes, [{ name: 'Flat', threshold: 1, multiplierPermille: 1000 }]);
        expect(evaluateBasket(index, flat, w.basket, withMeasures(w.consumer, measures))).toEqual(today);
        const high = tiered(w.schemes, [{ name: 'High', threshold: 1001, multiplierPermille: 3000 }]);
        expect(evaluateBasket(index, high, w.basket, withMeasures(w.consumer, measures))).toEqual(today);
      }),
      { numRuns: RUNS },
    );
  });

  it("a consumer in a tier earns the scheme's points times its multiplier, rounded down; rewards of campaigns unchanged", () => {
    fc.assert(
      fc.property(world, fc.integer({ min: 1000, max: 10_000 }), (w, permille) => {
        if (w.consumer === null) return;
        const index = run(w);
        const today = evaluateBasket(index, w.schemes, w.basket, w.consumer);
        const schemes = tiered(w.schemes, [{ name: 'T', threshold: 10, multiplierPermille: permille }]);
        const inTier = withMeasures(
          w.consumer,
          schemes.map((s) => [s.id, 10]),
        );
        const r = evaluateBasket(index, schemes, w.basket, inTier);
        expect(r.rewards.filter((x) => x.source === 'campaign')).toEqual(
          today.rewards.filter((x) => x.source === 'campaign'),
        );
        expect(r.loyalty.length).toBe(today.loyalty.length);
        for (const [i, line] of r.loyalty.entries()) {
          const before = today.loyalty[i]?.earnedPoints ?? 0;
          expect(line.earnedPoints).toBe(
            Math.min(Math.floor((before * permille) / 1000), MAX_POINTS_PER_BASKET),
          );
          expect(line.newPoints).toBe(line.previousPoints + line.earnedPoints - line.spentPoints);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('campaigns limited to tiers, properties', () => {
  const names = ['Silver', 'Gold'];
  it("a campaign limited to tiers applies exactly when the consumer's tier before the basket is named: the result is that of the open campaigns alone", () => {
    fc.assert(
      fc.property(
        world,
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 400 }),
        fc.array(fc.subarray(names, { minLength: 1 }), { minLength: 40, maxLength: 40 }),
        (w, schemeId, measure, picks) => {
          const schemes = tiered(w.schemes, [SILVER, GOLD]);
          const consumer = withMeasures(w.consumer, [[schemeId, measure]]);
          const limited = w.campaigns.map((c, i) =>
            i % 2 === 0 ? { ...c, tiers: { schemeId, names: picks[i % 40] ?? names } } : c,
          );
          const hasScheme = schemes.some((s) => s.id === schemeId);
          const held = hasScheme ? tierStanding([SILVER, GOLD], measure).tier?.name : undefined;
          const open = w.campaigns.filter(
            (c, i) =>
              i % 2 !== 0 ||
              (consumer !== null &&
                w.basket.consumerKnown &&
                held !== undefined &&
                (picks[i % 40] ?? names).includes(held)),
          );
          const expected = evaluateBasket(buildCampaignIndex(open), schemes, w.basket, consumer);
          const got = evaluateBasket(buildCampaignIndex(limited), schemes, w.basket, consumer);
          expect(got.rewards).toEqual(expected.rewards);
          expect(got.loyalty).toEqual(expected.loyalty);
          expect(got.couponUsages).toEqual(expected.couponUsages);
          const explained = evaluateBasket(buildCampaignIndex(limited), schemes, w.basket, consumer, {
            explain: true,
          });
          expect(explained.rewards).toEqual(expected.rewards);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
