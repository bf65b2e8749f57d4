import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baskets, campaigns, mulberry32, sortiment, withStacking } from '../../bench/engine.bench.js';
import { type CampaignIndex, buildCampaignIndex } from '../../src/engine/campaign-index.js';
import { buildPluTable, pluKey } from '../../src/engine/candidate-keys.js';
import { evaluateBasket } from '../../src/engine/evaluate.js';
import { campaign } from './fixtures.js';
import { referenceEvaluate } from './reference-engine.js';
import type {
  Campaign,
  ConsumerState,
  Discount,
  EngineBasket,
  EnginePosition,
  Instant,
  LoyaltyScheme,
  Selector,
  Stacking,
  Tier,
} from '../../src/engine/types.js';

/*
 * The engine finds a basket's campaigns through its index (by PLU, by group, bill campaigns by
 * threshold, each outlet and coupon code apart); the reference looks at every campaign. Whatever the
 * campaigns and the basket, both give the same rewards, reward for reward, the same loyalty lines
 * and the same coupon usages. Campaigns set to stack are found through the index as well (and read
 * one by one in order of application by the reference), so the campaign sets mix stacking settings. Campaigns limited to status tiers are among them (a basket-level
 * check, against the consumer's tier in the scheme).
 */

const PLUS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];
const GROUPS = ['G1', 'G1.1', 'G1.2', 'G2', 'G2.1'];
const CODES = ['X', 'Y', 'Z'];
const OUTLETS = [1, 2, 3];
const BASE_MS = Date.UTC(2026, 2, 2);
const WEEK_MS = 7 * 86_400_000;
const RUNS = 1500;

const selectorArb: fc.Arbitrary<Selector> = fc.oneof(
  { arbitrary: fc.constantFrom(...PLUS).map((plu) => ({ plu })), weight: 3 },
  { arbitrary: fc.constantFrom(...GROUPS).map((group) => ({ group })), weight: 2 },
);
const discountArb: fc.Arbitrary<Discount> = fc.oneof(
  fc.integer({ min: 0, max: 12000 }).map((bp) => ({ kind: 'percent' as const, bp })),
  fc.integer({ min: 0, max: 3000 }).map((minor) => ({ kind: 'amount' as const, minor })),
  fc.integer({ min: 0, max: 3000 }).map((minor) => ({ kind: 'price' as const, minor })),
);
const stackingArb: fc.Arbitrary<Stacking> = fc.oneof(
  fc.constant({ mode: 'exclusive' as const }),
  fc.constant({ mode: 'stackable' as const }),
  fc.constantFrom('g1', 'g2').map((group) => ({ mode: 'group' as const, group })),
);
const instantArb: fc.Arbitrary<Instant> = fc.record({
  utcMs: fc.integer({ min: BASE_MS, max: BASE_MS + WEEK_MS }),
  offsetMinutes: fc.constantFrom(-300, 0, 60, 330),
});
const timeArb = fc.option(fc.integer({ min: BASE_MS, max: BASE_MS + WEEK_MS }), { freq: 2 });

const campaignArb = (id: number): fc.Arbitrary<Campaign> =>
  fc.record({
    id: fc.constant(id),
    version: fc.integer({ min: 1, max: 2 }),
    name: fc.constant(`C${id}`),
    type: fc.constantFrom('bill', 'product', 'combination', 'quantity'),
    discount: discountArb,
    products: fc.array(selectorArb, { maxLength: 3 }),
    combination: fc.array(fc.record({ selector: selectorArb, quantity: fc.integer({ min: 1, max: 2 }) }), {
      maxLength: 3,
    }),
    buy: fc.integer({ min: 0, max: 3 }),
    get: fc.integer({ min: 1, max: 2 }),
    // round thresholds, which baskets of round prices reach exactly
    minTotalMinor: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: 20000 }),
      fc.constantFrom(500, 1000, 1500),
    ),
    maxApplications: fc.option(fc.integer({ min: 0, max: 4 })),
    couponCode: fc.option(fc.constantFrom(...CODES), { freq: 2 }),
    requiresConsumer: fc.boolean(),
    validFromMs: timeArb,
    validToMs: timeArb,
    schedule: fc.array(
      fc.record({
        days: fc.subarray([1, 2, 3, 4, 5, 6, 7], { minLength: 1 }),
        fromMinute: fc.integer({ min: 0, max: 1439 }),
        toMinute: fc.integer({ min: 0, max: 1440 }),
      }),
      { maxLength: 2 },
    ),
    outletIds: fc.option(fc.array(fc.constantFrom(...OUTLETS), { maxLength: 3 }), { freq: 2 }),
    channels: fc.constantFrom<('pos' | 'checkout')[]>([], ['pos'], ['checkout'], ['pos', 'checkout']),
    priority: fc.integer({ min: 0, max: 2 }),
    exclusive: fc.boolean(),
    usageLimitPerConsumer: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 3 }),
    // half the campaigns keep the default; a setting counts for product campaigns (exclusive: for every type)
    stacking: fc.option(stackingArb, { freq: 2 }),
    tiers: fc.option(
      fc.record({
        schemeId: fc.integer({ min: 1, max: 3 }),
        names: fc.subarray(['Silver', 'gold', 'Bronze'], { minLength: 1 }),
      }),
      { freq: 3 },
    ),
  });

/** Ids are drawn with repeats, so that one id can come in two versions. */
const campaignsArb: fc.Arbitrary<Campaign[]> = fc
  .array(fc.integer({ min: 1, max: 40 }), { maxLength: 40 })
  .chain((ids) =>
    ids.length === 0 ? fc.constant<Campaign[]>([]) : fc.tuple(...ids.map((id) => campaignArb(id))),
  )
  .map((cs: Campaign[]) => {
    const seen = new Set<string>();
    return cs.filter((c) => {
      const key = `${c.id}/${c.version}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  });

const positionArb = (positionId: number): fc.Arbitrary<EnginePosition> =>
  fc
    .record({
      productId: fc.option(fc.constantFrom(...PLUS), { freq: 8 }),
      groupIds: fc.subarray(GROUPS, { maxLength: 2 }),
      weighed: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
      pieces: fc.integer({ min: 0, max: 5 }),
      unitPriceMinor: fc.oneof(fc.integer({ min: -50, max: 3000 }), fc.constantFrom(250, 500)),
      kgLineMinor: fc.integer({ min: 0, max: 5000 }),
      hasDiscounts: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      orderTime: fc.option(instantArb, { freq: 3 }),
    })
    .map((r) => ({
      positionId,
      productId: r.productId,
      // as the service hands them over: strings made at run time, not the literals of the campaigns
      groupIds: r.groupIds.map((g) => [...g].join('')),
      unit: r.weighed ? (1 as const) : (0 as const),
      pieces: r.weighed ? 0 : r.pieces,
      unitPriceMinor: r.unitPriceMinor,
      lineGrossMinor: r.weighed ? r.kgLineMinor : r.unitPriceMinor * r.pieces,
      hasDiscounts: r.hasDiscounts,
      orderTime: r.orderTime,
    }));

const basketOfArb = (minLength: number, maxLength: number): fc.Arbitrary<EngineBasket> =>
  fc.uniqueArray(fc.integer({ min: 1, max: 3 * maxLength }), { minLength, maxLength }).chain((ids) =>
    fc.record({
      timestamp: instantArb,
      hasDiscounts: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
      outletId: fc.option(fc.constantFrom(...OUTLETS, 4), { freq: 5 }),
      channel: fc.constantFrom<'pos' | 'checkout'>('pos', 'checkout'),
      couponCodes: fc.array(fc.constantFrom(...CODES, 'x'), { maxLength: 3 }),
      consumerKnown: fc.boolean(),
      positions: ids.length === 0 ? fc.constant([]) : fc.tuple(...ids.map((id) => positionArb(id))),
    }),
  );
const basketArb = basketOfArb(0, 20);
/** More positions than one 32-bit word has bits: the search marks a campaign's lines in several words. */
const longBasketArb = basketOfArb(33, 70);

const schemesArb: fc.Arbitrary<LoyaltyScheme[]> = fc.uniqueArray(
  fc.record({
    id: fc.integer({ min: 1, max: 3 }),
    version: fc.constant(1),
    name: fc.constant('S'),
    earn: fc.array(
      fc.record({
        per: fc.constant('amount' as const),
        amountMinor: fc.integer({ min: 1, max: 500 }),
        points: fc.integer({ min: 1, max: 3 }),
      }),
      { maxLength: 1 },
    ),
    reward: fc.option(
      fc.record({
        threshold: fc.integer({ min: 1, max: 30 }),
        type: fc.constant('bill' as const),
        discount: discountArb,
      }),
    ),
    validFromMs: fc.constant(null),
    validToMs: fc.constant(null),
    // A scheme limited to outlets gives no tier elsewhere: a campaign limited to its tiers is left out.
    outletIds: fc.option(fc.array(fc.constantFrom(...OUTLETS), { minLength: 1, maxLength: 2 }), { freq: 3 }),
    pointsExpireAfterDays: fc.constant(null),
    tiers: fc.constantFrom<Tier[]>(
      [],
      [
        { name: 'Silver', threshold: 100, multiplierPermille: 1000 },
        { name: 'Gold', threshold: 300, multiplierPermille: 1500 },
      ],
    ),
  }),
  { maxLength: 2, selector: (s) => s.id },
);

const consumerArb: fc.Arbitrary<ConsumerState | null> = fc.option(
  fc.record({
    usages: fc
      .array(fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 3 })))
      .map((e) => new Map(e)),
    points: fc
      .array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 40 })))
      .map((e) => new Map(e)),
    tierMeasures: fc
      .array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, 99, 100, 299, 300, 500)))
      .map((e) => new Map(e)),
  }),
  { freq: 4 },
);

const world = fc.record({
  campaigns: campaignsArb,
  basket: basketArb,
  schemes: schemesArb,
  consumer: consumerArb,
});

/** The index with its own PLU table however few PLUs it names (built from PLU_TABLE_FROM on). */
function withPluTable(index: CampaignIndex): CampaignIndex {
  return { ...index, keys: { ...index.keys, pluTable: buildPluTable(index.keys.byPlu) } };
}

describe('the campaign index finds every campaign that can match a basket, and no other', () => {
  it('gives the rewards, loyalty lines and coupon usages of an evaluation that looks at every campaign', () => {
    fc.assert(
      fc.property(world, ({ campaigns: cs, basket, schemes, consumer }) => {
        const expected = referenceEvaluate(cs, schemes, basket, consumer);
        const index = buildCampaignIndex(cs);
        const plain = evaluateBasket(index, schemes, basket, consumer);
        expect(plain.rewards).toEqual(expected.rewards);
        expect(plain.loyalty).toEqual(expected.loyalty);
        expect(plain.couponUsages).toEqual(expected.couponUsages);
        // with explanations (dry run) the same rewards, whatever else is explained
        const explained = evaluateBasket(index, schemes, basket, consumer, { explain: true });
        expect(explained.rewards).toEqual(expected.rewards);
        expect(explained.couponUsages).toEqual(expected.couponUsages);
      }),
      { numRuns: RUNS },
    );
  });

  it('gives the same results on baskets of more than 32 positions, after and before shorter ones', () => {
    fc.assert(
      fc.property(
        campaignsArb,
        fc.array(fc.oneof(longBasketArb, basketArb), { minLength: 1, maxLength: 3 }),
        schemesArb,
        consumerArb,
        (cs, bs, schemes, consumer) => {
          const index = buildCampaignIndex(cs);
          for (const basket of bs) {
            const expected = referenceEvaluate(cs, schemes, basket, consumer);
            const plain = evaluateBasket(index, schemes, basket, consumer);
            expect(plain.rewards).toEqual(expected.rewards);
            expect(plain.loyalty).toEqual(expected.loyalty);
            expect(plain.couponUsages).toEqual(expected.couponUsages);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds campaigns by PLUs of any length and character, twins that differ in the last one included', () => {
    // The index keeps PLUs of up to 12 characters in its own table and compares longer ones whole.
    const odd: Record<string, string> = {
      A: '4006381333931',
      B: '4006381333932',
      C: '',
      D: '\u8000\uffff',
      E: 'P1',
      F: 'P12345678901',
      G: 'P123456789012',
      H: 'P12345678902',
    };
    const rename = (sel: Selector): Selector => ('plu' in sel ? { plu: odd[sel.plu] ?? sel.plu } : sel);
    fc.assert(
      fc.property(world, ({ campaigns: cs, basket, schemes, consumer }) => {
        // most without the conditions that keep a campaign from applying, so that many apply
        const renamed = cs.map((c, i) => ({
          ...c,
          ...(i % 4 === 0
            ? {}
            : {
                schedule: [],
                usageLimitPerConsumer: null,
                validFromMs: null,
                validToMs: null,
                requiresConsumer: false,
                tiers: null,
              }),
          products: c.products.map(rename),
          combination: c.combination.map((part) => ({ ...part, selector: rename(part.selector) })),
        }));
        const b: EngineBasket = {
          ...basket,
          positions: basket.positions.map((p) => ({
            ...p,
            // made at run time, as the service hands them over
            productId: p.productId === null ? null : [...(odd[p.productId] ?? p.productId)].join(''),
          })),
        };
        const expected = referenceEvaluate(renamed, schemes, b, consumer);
        const got = evaluateBasket(withPluTable(buildCampaignIndex(renamed)), schemes, b, consumer);
        expect(got.rewards).toEqual(expected.rewards);
        expect(got.loyalty).toEqual(expected.loyalty);
        expect(got.couponUsages).toEqual(expected.couponUsages);
      }),
      { numRuns: 500 },
    );
  });

  it("looks a PLU up in the index's own table as in the map of PLUs, found or not", () => {
    const plus = ['', 'P', 'P1', 'P2', 'P12345678901', 'P12345678902', 'P123456789012', 'P123456789013'];
    const more = ['4006381333931', '4006381333932', '\u8000', '\uffff\u8000', 'ü€', 'Q1', 'Q12'];
    const all = [...plus, ...more];
    fc.assert(
      fc.property(fc.subarray(all), (named) => {
        const index = withPluTable(
          buildCampaignIndex(
            named.map((plu, i) =>
              campaign({
                id: i + 1,
                type: 'product',
                discount: { kind: 'percent', bp: 1000 },
                products: [{ plu }],
              }),
            ),
          ),
        );
        for (const plu of all) {
          const asked = [...plu].join('');
          expect(pluKey(index.keys, asked)).toBe(index.keys.byPlu.get(plu));
          expect(pluKey(index.keys, asked) !== undefined).toBe(named.includes(plu));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('one index serves many baskets: a basket evaluated after others gets what it gets alone', () => {
    fc.assert(
      fc.property(campaignsArb, fc.array(basketArb, { minLength: 2, maxLength: 5 }), (cs, bs) => {
        const index = buildCampaignIndex(cs);
        for (const b of bs) {
          expect(evaluateBasket(index, [], b, null).rewards).toEqual(
            referenceEvaluate(cs, [], b, null).rewards,
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    [100, 'off'],
    [1000, 'off'],
    [10000, 'off'],
    [100, 'on'],
    [1000, 'on'],
    [10000, 'on'],
  ] as const)(
    'agrees on the benchmark 20-position carts with mixed promotions at %i campaigns, stacking %s',
    (n, stacking) => {
      const rand = mulberry32(20260302);
      const articles = sortiment(rand);
      const pool = baskets(articles, rand).slice(0, n === 10000 ? 40 : 150);
      const plain = campaigns(n, articles, rand);
      const cs = stacking === 'on' ? withStacking(plain, mulberry32(n)) : plain;
      const index = buildCampaignIndex(cs);
      const consumer: ConsumerState = { usages: new Map([[1, 2]]), points: new Map() };
      let rewards = 0;
      for (const b of pool) {
        const c = b.consumerKnown ? consumer : null;
        const got = evaluateBasket(index, [], b, c);
        const expected = referenceEvaluate(cs, [], b, c);
        expect(got.rewards).toEqual(expected.rewards);
        expect(got.couponUsages).toEqual(expected.couponUsages);
        rewards += got.rewards.length;
      }
      expect(rewards).toBeGreaterThan(0);
    },
  );
});
