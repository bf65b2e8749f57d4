import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCampaignIndex } from '../../src/engine/campaign-index.js';
import { evaluateBasket } from '../../src/engine/evaluate.js';
import { deepFreeze } from './fixtures.js';
import type {
  Campaign,
  ConsumerState,
  Discount,
  EngineBasket,
  EnginePosition,
  Instant,
  LoyaltyScheme,
  Selector,
} from '../../src/engine/types.js';

const PLUS = ['A', 'B', 'C', 'D', 'E'];
const GROUPS = ['G1', 'G2', 'G3'];
const BASE_MS = Date.UTC(2026, 2, 2);
const RUNS = 2000;

const selectorArb: fc.Arbitrary<Selector> = fc.oneof(
  fc.constantFrom(...PLUS).map((plu) => ({ plu })),
  fc.constantFrom(...GROUPS).map((group) => ({ group })),
);
const discountArb: fc.Arbitrary<Discount> = fc.oneof(
  fc.integer({ min: 0, max: 12000 }).map((bp) => ({ kind: 'percent' as const, bp })),
  fc.integer({ min: 0, max: 3000 }).map((minor) => ({ kind: 'amount' as const, minor })),
  fc.integer({ min: 0, max: 3000 }).map((minor) => ({ kind: 'price' as const, minor })),
);
const instantArb: fc.Arbitrary<Instant> = fc.record({
  utcMs: fc.integer({ min: BASE_MS, max: BASE_MS + 7 * 86_400_000 }),
  offsetMinutes: fc.constantFrom(-300, 0, 60, 330),
});

const campaignArb = (id: number): fc.Arbitrary<Campaign> =>
  fc.record({
    id: fc.constant(id),
    version: fc.constant(1),
    name: fc.constant(`C${id}`),
    type: fc.constantFrom('bill', 'product', 'combination', 'quantity'),
    discount: discountArb,
    products: fc.array(selectorArb, { maxLength: 2 }),
    combination: fc.array(fc.record({ selector: selectorArb, quantity: fc.integer({ min: 1, max: 2 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
    buy: fc.integer({ min: 0, max: 3 }),
    get: fc.integer({ min: 1, max: 2 }),
    minTotalMinor: fc.integer({ min: 0, max: 5000 }),
    maxApplications: fc.option(fc.integer({ min: 0, max: 4 })),
    couponCode: fc.option(fc.constantFrom('X', 'Y')),
    requiresConsumer: fc.boolean(),
    validFromMs: fc.option(fc.integer({ min: BASE_MS, max: BASE_MS + 7 * 86_400_000 })),
    validToMs: fc.option(fc.integer({ min: BASE_MS, max: BASE_MS + 7 * 86_400_000 })),
    schedule: fc.array(
      fc.record({
        days: fc.subarray([1, 2, 3, 4, 5, 6, 7], { minLength: 1 }),
        fromMinute: fc.integer({ min: 0, max: 1439 }),
        toMinute: fc.integer({ min: 0, max: 1440 }),
      }),
      { maxLength: 1 },
    ),
    outletIds: fc.option(fc.constant([1])),
    channels: fc.constantFrom<('pos' | 'checkout')[]>([], ['pos'], ['checkout']),
    priority: fc.integer({ min: 0, max: 2 }),
    exclusive: fc.boolean(),
    usageLimitPerConsumer: fc.option(fc.integer({ min: 0, max: 3 })),
  });

const campaignsArb: fc.Arbitrary<Campaign[]> = fc
  .integer({ min: 0, max: 6 })
  .chain((n) =>
    n === 0 ? fc.constant([]) : fc.tuple(...Array.from({ length: n }, (_, i) => campaignArb(i + 1))),
  );

const positionArb = (positionId: number): fc.Arbitrary<EnginePosition> =>
  fc
    .record({
      productId: fc.option(fc.constantFrom(...PLUS), { freq: 8 }),
      groupIds: fc.subarray(GROUPS, { maxLength: 2 }),
      kgBias: fc.integer({ min: 0, max: 9 }),
      pieces: fc.integer({ min: 0, max: 5 }),
      unitPriceMinor: fc.integer({ min: -50, max: 2000 }),
      extraMinor: fc.integer({ min: 0, max: 99 }),
      kgLineMinor: fc.integer({ min: 0, max: 5000 }),
      hasDiscounts: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      orderTime: fc.option(instantArb),
    })
    .map((r) => {
      const weighed = r.kgBias < 2;
      const line = r.unitPriceMinor * r.pieces;
      return {
        positionId,
        productId: r.productId,
        groupIds: r.groupIds,
        unit: weighed ? 1 : 0,
        pieces: weighed ? 0 : r.pieces,
        unitPriceMinor: r.unitPriceMinor,
        // a fractional Amount makes the line worth a little more than its whole pieces
        lineGrossMinor: weighed
          ? r.kgLineMinor
          : line + (r.unitPriceMinor > 0 ? Math.min(r.extraMinor, r.unitPriceMinor - 1) : 0),
        hasDiscounts: r.hasDiscounts,
        orderTime: r.orderTime,
      };
    });

const basketArb: fc.Arbitrary<EngineBasket> = fc
  .uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 8 })
  .chain((ids) =>
    fc.record({
      timestamp: instantArb,
      hasDiscounts: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      outletId: fc.option(fc.constantFrom(1, 2)),
      channel: fc.constantFrom<'pos' | 'checkout'>('pos', 'checkout'),
      couponCodes: fc.subarray(['X', 'Y', 'x']),
      consumerKnown: fc.boolean(),
      positions: ids.length === 0 ? fc.constant([]) : fc.tuple(...ids.map((id) => positionArb(id))),
    }),
  );

const schemesArb: fc.Arbitrary<LoyaltyScheme[]> = fc.uniqueArray(
  fc.record({
    id: fc.integer({ min: 1, max: 3 }),
    version: fc.constant(1),
    name: fc.constant('S'),
    earn: fc.array(
      fc.oneof(
        fc.record({
          per: fc.constant('amount' as const),
          amountMinor: fc.integer({ min: 1, max: 500 }),
          points: fc.integer({ min: 1, max: 3 }),
        }),
        fc.record({
          per: fc.constant('unit' as const),
          products: fc.array(selectorArb, { maxLength: 2 }),
          points: fc.integer({ min: 1, max: 3 }),
        }),
      ),
      { maxLength: 2 },
    ),
    reward: fc.option(
      fc.oneof(
        fc.record({
          threshold: fc.integer({ min: 1, max: 30 }),
          type: fc.constant('product' as const),
          products: fc.array(selectorArb, { maxLength: 2 }),
          discount: discountArb,
        }),
        fc.record({
          threshold: fc.integer({ min: 1, max: 30 }),
          type: fc.constant('bill' as const),
          discount: discountArb,
        }),
      ),
    ),
    validFromMs: fc.constant(null),
    validToMs: fc.constant(null),
    outletIds: fc.constant(null),
    pointsExpireAfterDays: fc.option(fc.integer({ min: 1, max: 365 })),
  }),
  { maxLength: 2, selector: (s) => s.id },
);

const consumerArb: fc.Arbitrary<ConsumerState | null> = fc.option(
  fc.record({
    usages: fc
      .array(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 3 })))
      .map((e) => new Map(e)),
    points: fc
      .array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 40 })))
      .map((e) => new Map(e)),
  }),
);

const world = fc.record({
  campaigns: campaignsArb,
  basket: basketArb,
  schemes: schemesArb,
  consumer: consumerArb,
});

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
