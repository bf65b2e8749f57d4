import fc from 'fast-check';
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

/** Random worlds (campaigns, basket, schemes, consumer) for the engine's property tests. */
export const PLUS = ['A', 'B', 'C', 'D', 'E'];
export const GROUPS = ['G1', 'G2', 'G3'];
export const BASE_MS = Date.UTC(2026, 2, 2);
export const RUNS = 2000;

export const selectorArb: fc.Arbitrary<Selector> = fc.oneof(
  fc.constantFrom(...PLUS).map((plu) => ({ plu })),
  fc.constantFrom(...GROUPS).map((group) => ({ group })),
);
export const discountArb: fc.Arbitrary<Discount> = fc.oneof(
  fc.integer({ min: 0, max: 12000 }).map((bp) => ({ kind: 'percent' as const, bp })),
  fc.integer({ min: 0, max: 3000 }).map((minor) => ({ kind: 'amount' as const, minor })),
  fc.integer({ min: 0, max: 3000 }).map((minor) => ({ kind: 'price' as const, minor })),
);
export const instantArb: fc.Arbitrary<Instant> = fc.record({
  utcMs: fc.integer({ min: BASE_MS, max: BASE_MS + 7 * 86_400_000 }),
  offsetMinutes: fc.constantFrom(-300, 0, 60, 330),
});

export const campaignArb = (id: number): fc.Arbitrary<Campaign> =>
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

export const campaignsArb: fc.Arbitrary<Campaign[]> = fc
  .integer({ min: 0, max: 6 })
  .chain((n) =>
    n === 0 ? fc.constant([]) : fc.tuple(...Array.from({ length: n }, (_, i) => campaignArb(i + 1))),
  );

export const positionArb = (positionId: number): fc.Arbitrary<EnginePosition> =>
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

export const basketArb: fc.Arbitrary<EngineBasket> = fc
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

export const schemesArb: fc.Arbitrary<LoyaltyScheme[]> = fc.uniqueArray(
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

export const consumerArb: fc.Arbitrary<ConsumerState | null> = fc.option(
  fc.record({
    usages: fc
      .array(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 3 })))
      .map((e) => new Map(e)),
    points: fc
      .array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 40 })))
      .map((e) => new Map(e)),
  }),
);

export const world = fc.record({
  campaigns: campaignsArb,
  basket: basketArb,
  schemes: schemesArb,
  consumer: consumerArb,
});
